/**
 * Taints and tolerations with Kubernetes' matching rules (k8s.io/api/core/v1 toleration.go): an empty
 * effect matches every effect, an empty key with `Exists` matches every taint, `Equal` (or no operator)
 * compares values.
 */

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect | string;
  readonly timeAdded?: string;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Equal' | 'Exists' | string;
  readonly value?: string;
  readonly effect?: TaintEffect | string;
  readonly tolerationSeconds?: number;
}

export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function isTolerated(taint: Taint, tolerations: readonly Toleration[]): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/** The first taint with one of `effects` that no toleration matches (the scheduler's TaintToleration filter). */
export function firstUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  effects: readonly string[] = ['NoSchedule', 'NoExecute'],
): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !isTolerated(taint, tolerations));
}

export function formatTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
}

/** Well-known taints (k8s.io/api/core/v1 well_known_taints.go and cloud-provider's api). */
export const TAINTS = {
  uninitialized: 'node.cloudprovider.kubernetes.io/uninitialized',
  unschedulable: 'node.kubernetes.io/unschedulable',
  notReady: 'node.kubernetes.io/not-ready',
  unreachable: 'node.kubernetes.io/unreachable',
  diskPressure: 'node.kubernetes.io/disk-pressure',
  memoryPressure: 'node.kubernetes.io/memory-pressure',
  pidPressure: 'node.kubernetes.io/pid-pressure',
  networkUnavailable: 'node.kubernetes.io/network-unavailable',
} as const;
