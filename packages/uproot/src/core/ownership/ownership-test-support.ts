/**
 * Plain-data builders for the ownership tests (here and the engine's gate test): lease records as the journal
 * keeps them, and manager pods as the gate reads them.
 */
import type { ManagerComponent } from '../leader-migration/index.js';
import type { ManagerPod } from './holder-profiles.js';
import type { OwnershipFindings } from './overlaps.js';
import type { LeaseRecord } from './lease-record.js';

export const T0 = Date.UTC(2026, 0, 1, 12);
export const KCM = 'kube-controller-manager';
export const CCM = 'cloud-controller-manager';
export const MIG = 'cloud-provider-extraction-migration';

/** `s` seconds after T0, as RFC 3339. */
export const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

/** `holder` seen taking `lease` at `s` (the journal records holder changes only). */
export function took(lease: string, holder: string, s: number): LeaseRecord {
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
export function look(timeline: readonly LeaseRecord[], s: number): LeaseRecord[] {
  const latest = new Map<string, LeaseRecord>();
  for (const o of timeline) latest.set(o.name, o);
  return [...latest.values()].map((o) => ({ ...o, observedAt: at(s), renewTime: at(s) }));
}

/** A timeline of holder changes followed by the look at `now`. */
export function timelineOf(changes: readonly LeaseRecord[], now: number): LeaseRecord[] {
  return [...changes, ...look(changes, now)];
}

export function managerPod(
  component: ManagerComponent,
  node: string,
  args: readonly string[],
  options: { readonly version: string; readonly startedS?: number },
): ManagerPod & { readonly labels: Record<string, string>; readonly phase: string; readonly ready: boolean } {
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

/** The overlaps' descriptions, one a line ('' for none). */
export function described(findings: OwnershipFindings): string {
  return findings.overlaps.map((o) => o.description).join('\n');
}
