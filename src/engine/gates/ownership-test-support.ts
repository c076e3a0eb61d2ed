/** Plain-data builders for the ownership tests: lease records as the journal keeps them, and manager pods. */
import type { LeaseObservation } from '../journal/journal-schema.js';
import type { ComponentPodFacts, ManagerComponent } from './gate-facts.js';

export const T0 = Date.UTC(2026, 0, 1, 12);
export const KCM = 'kube-controller-manager';
export const CCM = 'cloud-controller-manager';
export const MIG = 'cloud-provider-extraction-migration';

/** `s` seconds after T0, as RFC 3339. */
export const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

/** `holder` seen taking `lease` at `s` (the journal records holder changes only). */
export function took(lease: string, holder: string, s: number): LeaseObservation {
  return {
    namespace: 'kube-system',
    name: lease,
    holder,
    observedAt: at(s),
    acquireTime: at(s),
    renewTime: at(s),
    leaseDurationSeconds: 15,
  };
}

/** The gate's own look at `s`: each lease's latest record, renewed just now (its holder is alive). */
export function look(timeline: readonly LeaseObservation[], s: number): LeaseObservation[] {
  const latest = new Map<string, LeaseObservation>();
  for (const o of timeline) latest.set(o.name, o);
  return [...latest.values()].map((o) => ({ ...o, observedAt: at(s), renewTime: at(s) }));
}

/** A timeline of holder changes followed by the look at `now`. */
export function timelineOf(changes: readonly LeaseObservation[], now: number): LeaseObservation[] {
  return [...changes, ...look(changes, now)];
}

export function managerPod(
  component: ManagerComponent,
  node: string,
  args: readonly string[],
  options: { readonly version: string; readonly startedS?: number },
): ComponentPodFacts {
  const repository =
    component === KCM
      ? 'registry.k8s.io/kube-controller-manager'
      : 'registry.k8s.io/provider-aws/cloud-controller-manager';
  return {
    name: `${component}-${node}`,
    nodeName: node,
    labels: { component },
    args: [component, ...args],
    phase: 'Running',
    ready: true,
    image: `${repository}:v${options.version}`,
    startTime: at(options.startedS ?? -600),
  };
}
