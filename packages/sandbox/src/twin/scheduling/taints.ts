/**
 * Taints and tolerations as the twin's scheduler, DaemonSet controller and node lifecycle use them. The
 * matching rule is Kubernetes' own (k8s.io/api core/v1 Toleration.ToleratesTaint), kept once in
 * src/core/scheduling, which preflight judges with too.
 */
import { formatTaint, isTolerated, toleratesTaint } from 'uproot/core';

export { formatTaint, isTolerated, toleratesTaint };

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

/** The first taint with one of `effects` that no toleration matches (the scheduler's TaintToleration filter). */
export function firstUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  effects: readonly string[] = ['NoSchedule', 'NoExecute'],
): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !isTolerated(taint, tolerations));
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
