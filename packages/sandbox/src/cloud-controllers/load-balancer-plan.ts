import type { Instance } from '@aws-sdk/client-ec2';
import type { V1Service } from '@kubernetes/client-node';
import { CloudError, type ClusterTagging } from './aws-cloud.js';
import type { ControllerContext } from './controller-context.js';
import { findElbSubnets } from './elb-network.js';
import {
  defaultLoadBalancerName,
  isInternal,
  loadBalancerKind,
  portMappings,
  serviceKey,
  validateForAws,
  type PortMapping,
} from './load-balancer-spec.js';

/** Everything EnsureLoadBalancer needs, gathered before the first write. */
export interface LoadBalancerPlan {
  readonly name: string;
  readonly serviceKey: string;
  readonly kind: 'classic' | 'nlb';
  readonly vpcId: string;
  readonly tagging: ClusterTagging & { readonly clusterId: string };
  readonly ports: readonly PortMapping[];
  readonly subnetIds: readonly string[];
  readonly internal: boolean;
  /** Running, cluster-tagged instances of the target nodes (findInstancesForELB). */
  readonly instances: readonly Instance[];
}

/**
 * Validates the Service, requires a cluster id ("no ClusterID found" otherwise), resolves the target nodes'
 * running instances and the subnets. Throws CloudError with upstream's message on any problem.
 */
export async function planLoadBalancer(
  ctx: ControllerContext,
  service: V1Service,
  instanceIds: readonly string[],
): Promise<LoadBalancerPlan> {
  const kind = loadBalancerKind(service);
  if (kind === 'external') throw new CloudError('Other', 'load balancer is implemented elsewhere');
  const invalid = validateForAws(service, kind);
  if (invalid) throw new CloudError('Other', invalid);
  const tagging = await ctx.cloud.requireClusterId();
  const instances =
    instanceIds.length === 0
      ? []
      : await ctx.cloud.describeInstances([
          { Name: 'instance-id', Values: [...instanceIds] },
          { Name: 'instance-state-name', Values: ['running'] },
        ]);
  const vpcId = await ctx.cloud.vpcId(instances);
  const internal = isInternal(service);
  const subnetIds = await findElbSubnets(ctx, vpcId, tagging, internal);
  return {
    name: defaultLoadBalancerName(service.metadata?.uid ?? ''),
    serviceKey: serviceKey(service),
    kind,
    vpcId,
    tagging,
    ports: portMappings(service),
    subnetIds,
    internal,
    instances,
  };
}
