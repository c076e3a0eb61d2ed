import { TAINTS, type Toleration } from './taints.js';

/**
 * The tolerations the DaemonSet controller adds to every daemon pod (pkg/controller/daemon/util
 * AddOrUpdateDaemonPodTolerations): daemons keep running on nodes that are not ready, unreachable, under
 * pressure or cordoned, which is why a cordoned control-plane node still gets the CCM pod.
 */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  const tolerations: Toleration[] = [
    { key: TAINTS.notReady, operator: 'Exists', effect: 'NoExecute' },
    { key: TAINTS.unreachable, operator: 'Exists', effect: 'NoExecute' },
    { key: TAINTS.diskPressure, operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINTS.memoryPressure, operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINTS.pidPressure, operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINTS.unschedulable, operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork)
    tolerations.push({ key: TAINTS.networkUnavailable, operator: 'Exists', effect: 'NoSchedule' });
  return tolerations;
}

/** Adds the daemon tolerations the pod does not already have (same key, operator and effect). */
export function withDaemonPodTolerations(
  existing: readonly Toleration[],
  hostNetwork: boolean,
): Toleration[] {
  const out = [...existing];
  for (const t of daemonPodTolerations(hostNetwork)) {
    const present = out.some(
      (e) => e.key === t.key && (e.operator ?? 'Equal') === t.operator && e.effect === t.effect,
    );
    if (!present) out.push(t);
  }
  return out;
}
