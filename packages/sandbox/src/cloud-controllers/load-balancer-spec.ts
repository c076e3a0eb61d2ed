import { createHash } from 'node:crypto';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { LABEL_EXCLUDE_FROM_LB, UNINITIALIZED_TAINT, hasTaint } from './node-helpers.js';
import { parseProviderId } from './provider-id.js';

/** Pure rules of the service controller and cloud-provider-aws's load balancer code. */

export const LB_TYPE_ANNOTATION = 'service.beta.kubernetes.io/aws-load-balancer-type';
export const LB_INTERNAL_ANNOTATION = 'service.beta.kubernetes.io/aws-load-balancer-internal';
/** The service controller's finalizer: an LB Service is only removed once its load balancer is gone. */
export const LB_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

export type LoadBalancerKind = 'classic' | 'nlb' | 'external';

/** cloudprovider.DefaultLoadBalancerName: `a` + the UID without dashes, at most 32 characters. */
export function defaultLoadBalancerName(uid: string): string {
  return `a${uid}`.replaceAll('-', '').slice(0, 32);
}

/** isNLB / isLBExternal: `nlb` is an NLB; `external` and `nlb-ip` belong to another controller. */
export function loadBalancerKind(service: V1Service): LoadBalancerKind {
  const type = service.metadata?.annotations?.[LB_TYPE_ANNOTATION];
  if (type === 'nlb') return 'nlb';
  if (type === 'external' || type === 'nlb-ip') return 'external';
  return 'classic';
}

export function isInternal(service: V1Service): boolean {
  const v = service.metadata?.annotations?.[LB_INTERNAL_ANNOTATION];
  return v !== undefined && v !== '' && v !== 'false';
}

/** wantsLoadBalancer, and not handed to another implementation by loadBalancerClass. */
export function wantsLoadBalancer(service: V1Service): boolean {
  return service.spec?.type === 'LoadBalancer' && !service.spec.loadBalancerClass;
}

export const hasCleanupFinalizer = (service: V1Service): boolean =>
  (service.metadata?.finalizers ?? []).includes(LB_CLEANUP_FINALIZER);

/** needsCleanup: our finalizer is on, and the Service is going away or no longer wants a load balancer. */
export function needsCleanup(service: V1Service): boolean {
  if (!hasCleanupFinalizer(service)) return false;
  return Boolean(service.metadata?.deletionTimestamp) || !wantsLoadBalancer(service);
}

export const serviceKey = (service: V1Service): string =>
  `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;

/**
 * The EnsureLoadBalancer input checks whose errors users see in `SyncLoadBalancerFailed` events. Returns the
 * error message, or undefined when the Service can have an AWS load balancer.
 */
export function validateForAws(service: V1Service, kind: LoadBalancerKind): string | undefined {
  const spec = service.spec ?? {};
  if (spec.sessionAffinity && spec.sessionAffinity !== 'None') {
    return `unsupported load balancer affinity: ${spec.sessionAffinity}`;
  }
  const ports = spec.ports ?? [];
  if (ports.length === 0) return 'requested load balancer with no ports';
  const first = ports[0]?.protocol ?? 'TCP';
  if (ports.some((p) => (p.protocol ?? 'TCP') !== first))
    return 'mixed protocol is not supported for LoadBalancer';
  for (const p of ports) {
    const protocol = p.protocol ?? 'TCP';
    const ok = kind === 'nlb' ? protocol === 'TCP' || protocol === 'UDP' : protocol === 'TCP';
    if (!ok) return `Protocol ${protocol} not supported by LoadBalancer`;
  }
  if (spec.loadBalancerIP) return 'LoadBalancerIP cannot be specified for AWS ELB';
  return undefined;
}

/** A port the load balancer forwards: service port → node port (ports without a node port are skipped). */
export interface PortMapping {
  readonly port: number;
  readonly nodePort: number;
  readonly protocol: string;
}

export function portMappings(service: V1Service): PortMapping[] {
  return (service.spec?.ports ?? [])
    .filter((p) => (p.nodePort ?? 0) > 0)
    .map((p) => ({ port: p.port, nodePort: p.nodePort ?? 0, protocol: p.protocol ?? 'TCP' }));
}

/**
 * The nodes a load balancer targets: initialized nodes with a provider ID that are not excluded by label and
 * not being deleted. Returns their instance ids, sorted (also the "node set" whose change triggers an update).
 */
export function targetInstanceIds(nodes: readonly V1Node[]): string[] {
  const ids = new Set<string>();
  for (const node of nodes) {
    if (node.metadata?.deletionTimestamp) continue;
    if (node.metadata?.labels?.[LABEL_EXCLUDE_FROM_LB] !== undefined) continue;
    if (hasTaint(node, UNINITIALIZED_TAINT)) continue;
    const providerId = node.spec?.providerID;
    if (!providerId) continue;
    const parsed = parseProviderId(providerId);
    if (parsed.ok) ids.add(parsed.instanceId);
  }
  return [...ids].sort();
}

/** createTargetName: `k8s-<namespace[:8]>-<name[:8]>-<sha1 of the mapping, 10 hex>`. */
export function targetGroupName(namespace: string, name: string, mapping: PortMapping): string {
  const hash = createHash('sha1')
    .update(`${mapping.port}-${mapping.nodePort}-${mapping.protocol}-instance`)
    .digest('hex')
    .slice(0, 10);
  return `k8s-${namespace.toLowerCase().slice(0, 8)}-${name.toLowerCase().slice(0, 8)}-${hash}`;
}
