/**
 * Where a DaemonSet's pods can run, with the scheduler's own rules: nodeSelector is an exact label match;
 * a taint blocks unless a toleration tolerates it (src/core/scheduling: core/v1 Toleration.ToleratesTaint);
 * PreferNoSchedule never blocks. The DaemonSet controller adds its own tolerations to every daemon pod
 * (pkg/controller/daemon/util).
 */
import { formatTaint, toleratesTaint } from '../../scheduling/index.js';
import type { NodeFacts } from '../../model/snapshot.js';
import type { Taint, Toleration } from '../../model/taint.js';

export { formatTaint, toleratesTaint };

export function daemonSetTolerations(hostNetwork: boolean): Toleration[] {
  const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });
  return [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
    ...(hostNetwork ? [exists('node.kubernetes.io/network-unavailable', 'NoSchedule')] : []),
  ];
}

export interface PodPlacement {
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
}

export type PlacementVerdict =
  | { readonly fits: true }
  | {
      readonly fits: false;
      readonly selectorMismatch: readonly string[];
      readonly untolerated: readonly Taint[];
    };

/** Whether a pod with this placement can be scheduled on the node (taints that only prefer are ignored). */
export function placementOnNode(placement: PodPlacement, node: NodeFacts): PlacementVerdict {
  const selectorMismatch = Object.entries(placement.nodeSelector)
    .filter(([k, v]) => node.labels[k] !== v)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const untolerated = blockingTaints(node).filter(
    (taint) => !placement.tolerations.some((t) => toleratesTaint(t, taint)),
  );
  return selectorMismatch.length === 0 && untolerated.length === 0
    ? { fits: true }
    : { fits: false, selectorMismatch, untolerated };
}

/** The node's taints plus the one cordoning implies (the node lifecycle controller adds it). */
export function blockingTaints(node: NodeFacts): Taint[] {
  const taints = node.taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (node.unschedulable && !taints.some((t) => t.key === 'node.kubernetes.io/unschedulable')) {
    taints.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' });
  }
  return taints;
}
