import type { V1Node, V1Taint } from '@kubernetes/client-node';

/** The taint a kubelet with --cloud-provider=external registers with; cloud-node removes it. */
export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';
/** The taint cloud-node-lifecycle puts on nodes whose instance is stopped. */
export const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_ZONE_BETA = 'failure-domain.beta.kubernetes.io/zone';
export const LABEL_REGION_BETA = 'failure-domain.beta.kubernetes.io/region';
export const LABEL_INSTANCE_TYPE_BETA = 'beta.kubernetes.io/instance-type';
/** Nodes with this label are left out of load balancers (service controller). */
export const LABEL_EXCLUDE_FROM_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';

export const nodeName = (node: V1Node): string => node.metadata?.name ?? '';

export function hasTaint(node: V1Node, key: string): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === key);
}

export function withoutTaint(taints: readonly V1Taint[] | undefined, key: string): V1Taint[] {
  return (taints ?? []).filter((t) => t.key !== key);
}

/** The node's Ready condition status: True, False, or Unknown when missing (as the lifecycle controller reads it). */
export function readyStatus(node: V1Node): 'True' | 'False' | 'Unknown' {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
  return ready?.status === 'True' ? 'True' : ready?.status === 'False' ? 'False' : 'Unknown';
}

/** A deep copy through JSON, which is what the objects were on the wire anyway. */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
