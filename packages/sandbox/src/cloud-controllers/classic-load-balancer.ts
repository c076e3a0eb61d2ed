import {
  AddTagsCommand,
  ApplySecurityGroupsToLoadBalancerCommand,
  AttachLoadBalancerToSubnetsCommand,
  ConfigureHealthCheckCommand,
  CreateLoadBalancerCommand,
  CreateLoadBalancerListenersCommand,
  DeleteLoadBalancerCommand,
  DeleteLoadBalancerListenersCommand,
  DeregisterInstancesFromLoadBalancerCommand,
  DescribeLoadBalancersCommand,
  DescribeTagsCommand,
  RegisterInstancesWithLoadBalancerCommand,
  type Listener,
  type LoadBalancerDescription,
} from '@aws-sdk/client-elastic-load-balancing';
import { DeleteSecurityGroupCommand, RevokeSecurityGroupIngressCommand } from '@aws-sdk/client-ec2';
import { awsWrite } from './aws-write.js';
import { SERVICE_NAME_TAG, hasClusterTag, ownedTags } from './cluster-tags.js';
import type { ControllerContext } from './controller-context.js';
import {
  describeGroups,
  ensureLoadBalancerSecurityGroup,
  openInstanceSecurityGroups,
} from './elb-network.js';
import type { LoadBalancerPlan } from './load-balancer-plan.js';
import { ComponentError } from '../component-error.js';

/** Classic ELB behind a Service (cloud-provider-aws ensureLoadBalancer / EnsureLoadBalancerDeleted). */

export async function describeClassic(
  ctx: ControllerContext,
  name: string,
): Promise<LoadBalancerDescription | undefined> {
  const api = ctx.cloud.api;
  try {
    const out = await api.send(() =>
      api.elb.send(new DescribeLoadBalancersCommand({ LoadBalancerNames: [name] })),
    );
    return out.LoadBalancerDescriptions?.[0];
  } catch (error) {
    if ((error as { code?: string }).code === 'LoadBalancerNotFound') return undefined;
    throw error;
  }
}

/** What EnsureLoadBalancer did, for the ledger and the Service's status. */
export interface EnsureResult {
  readonly hostname: string;
  /** `created`, or `adopted` when a load balancer of that name already existed (its hostname is kept). */
  readonly outcome: 'created' | 'adopted';
}

export async function ensureClassic(
  ctx: ControllerContext,
  signal: AbortSignal,
  plan: LoadBalancerPlan,
): Promise<EnsureResult> {
  const api = ctx.cloud.api;
  const sgId = await ensureLoadBalancerSecurityGroup(ctx, signal, {
    lbName: plan.name,
    serviceKey: plan.serviceKey,
    vpcId: plan.vpcId,
    tagging: plan.tagging,
    ports: plan.ports,
  });
  const listeners: Listener[] = plan.ports.map((p) => ({
    Protocol: 'tcp',
    LoadBalancerPort: p.port,
    InstanceProtocol: 'tcp',
    InstancePort: p.nodePort,
  }));
  const tags = ownedTags(plan.tagging.clusterId, plan.tagging.legacy, {
    [SERVICE_NAME_TAG]: plan.serviceKey,
  });

  let lb = await describeClassic(ctx, plan.name);
  const outcome: EnsureResult['outcome'] = lb ? 'adopted' : 'created';
  if (!lb) {
    await awsWrite(ctx, signal, `CreateLoadBalancer ${plan.name} (classic, ${plan.serviceKey})`, () =>
      api.elb.send(
        new CreateLoadBalancerCommand({
          LoadBalancerName: plan.name,
          Listeners: listeners,
          Subnets: [...plan.subnetIds],
          SecurityGroups: [sgId],
          ...(plan.internal ? { Scheme: 'internal' } : {}),
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      ),
    );
    lb = await describeClassic(ctx, plan.name);
    if (!lb) throw new ComponentError(`load balancer ${plan.name} not found right after creating it`);
  } else {
    await reconcileExisting(ctx, signal, plan, lb, listeners, sgId, tags);
  }

  const health = {
    Target: `TCP:${plan.ports[0]?.nodePort ?? 0}`,
    Interval: 10,
    Timeout: 5,
    UnhealthyThreshold: 6,
    HealthyThreshold: 2,
  };
  const hc = lb.HealthCheck;
  if (
    !hc ||
    hc.Target !== health.Target ||
    hc.Interval !== health.Interval ||
    hc.Timeout !== health.Timeout ||
    hc.UnhealthyThreshold !== health.UnhealthyThreshold ||
    hc.HealthyThreshold !== health.HealthyThreshold
  ) {
    await awsWrite(ctx, signal, `ConfigureHealthCheck ${plan.name} ${health.Target}`, () =>
      api.elb.send(new ConfigureHealthCheckCommand({ LoadBalancerName: plan.name, HealthCheck: health })),
    );
  }

  await openInstanceSecurityGroups(ctx, signal, sgId, plan.instances, plan.tagging);

  const registered = new Set((lb.Instances ?? []).map((i) => i.InstanceId ?? ''));
  const wanted = new Set(plan.instances.map((i) => i.InstanceId ?? ''));
  const add = [...wanted].filter((id) => id && !registered.has(id)).sort();
  const remove = [...registered].filter((id) => id && !wanted.has(id)).sort();
  if (add.length > 0) {
    await awsWrite(ctx, signal, `RegisterInstancesWithLoadBalancer ${plan.name} ${add.join(',')}`, () =>
      api.elb.send(
        new RegisterInstancesWithLoadBalancerCommand({
          LoadBalancerName: plan.name,
          Instances: add.map((InstanceId) => ({ InstanceId })),
        }),
      ),
    );
  }
  if (remove.length > 0) {
    await awsWrite(ctx, signal, `DeregisterInstancesFromLoadBalancer ${plan.name} ${remove.join(',')}`, () =>
      api.elb.send(
        new DeregisterInstancesFromLoadBalancerCommand({
          LoadBalancerName: plan.name,
          Instances: remove.map((InstanceId) => ({ InstanceId })),
        }),
      ),
    );
  }
  return { hostname: lb.DNSName ?? '', outcome };
}

/** An existing load balancer is updated in place, never recreated, so its DNS name survives. */
async function reconcileExisting(
  ctx: ControllerContext,
  signal: AbortSignal,
  plan: LoadBalancerPlan,
  lb: LoadBalancerDescription,
  listeners: readonly Listener[],
  sgId: string,
  tags: Readonly<Record<string, string>>,
): Promise<void> {
  const api = ctx.cloud.api;
  const have = (lb.ListenerDescriptions ?? [])
    .map((d) => d.Listener)
    .filter((l): l is Listener => Boolean(l));
  const same = (a: Listener, b: Listener): boolean =>
    a.LoadBalancerPort === b.LoadBalancerPort &&
    a.InstancePort === b.InstancePort &&
    (a.Protocol ?? '').toLowerCase() === (b.Protocol ?? '').toLowerCase() &&
    (a.InstanceProtocol ?? a.Protocol ?? '').toLowerCase() ===
      (b.InstanceProtocol ?? b.Protocol ?? '').toLowerCase();
  const stale = have.filter((h) => !listeners.some((w) => same(h, w)));
  const missing = listeners.filter((w) => !have.some((h) => same(h, w)));
  if (stale.length > 0) {
    const ports = stale.map((l) => l.LoadBalancerPort ?? 0);
    await awsWrite(ctx, signal, `DeleteLoadBalancerListeners ${plan.name} ${ports.join(',')}`, () =>
      api.elb.send(
        new DeleteLoadBalancerListenersCommand({ LoadBalancerName: plan.name, LoadBalancerPorts: ports }),
      ),
    );
  }
  if (missing.length > 0) {
    await awsWrite(
      ctx,
      signal,
      `CreateLoadBalancerListeners ${plan.name} ${missing.map((l) => l.LoadBalancerPort).join(',')}`,
      () =>
        api.elb.send(
          new CreateLoadBalancerListenersCommand({ LoadBalancerName: plan.name, Listeners: [...missing] }),
        ),
    );
  }
  const attached = new Set(lb.Subnets ?? []);
  const newSubnets = plan.subnetIds.filter((s) => !attached.has(s));
  if (newSubnets.length > 0) {
    await awsWrite(ctx, signal, `AttachLoadBalancerToSubnets ${plan.name} ${newSubnets.join(',')}`, () =>
      api.elb.send(
        new AttachLoadBalancerToSubnetsCommand({ LoadBalancerName: plan.name, Subnets: newSubnets }),
      ),
    );
  }
  if (!(lb.SecurityGroups ?? []).includes(sgId)) {
    await awsWrite(ctx, signal, `ApplySecurityGroupsToLoadBalancer ${plan.name} ${sgId}`, () =>
      api.elb.send(
        new ApplySecurityGroupsToLoadBalancerCommand({ LoadBalancerName: plan.name, SecurityGroups: [sgId] }),
      ),
    );
  }
  const described = await api.send(() =>
    api.elb.send(new DescribeTagsCommand({ LoadBalancerNames: [plan.name] })),
  );
  const current = new Map(
    (described.TagDescriptions?.[0]?.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']),
  );
  const add = Object.entries(tags).filter(([k, v]) => current.get(k) !== v);
  if (add.length > 0) {
    await awsWrite(ctx, signal, `AddTags ${plan.name} ${add.map(([k]) => k).join(',')}`, () =>
      api.elb.send(
        new AddTagsCommand({
          LoadBalancerNames: [plan.name],
          Tags: add.map(([Key, Value]) => ({ Key, Value })),
        }),
      ),
    );
  }
}

/**
 * EnsureLoadBalancerDeleted (classic): revoke the instance groups' rules from the load balancer's group,
 * delete the load balancer, then its own cluster-tagged group. Returns false when there was none.
 */
export async function deleteClassic(
  ctx: ControllerContext,
  signal: AbortSignal,
  name: string,
  clusterId: string | undefined,
): Promise<boolean> {
  const lb = await describeClassic(ctx, name);
  if (!lb) return false;
  const api = ctx.cloud.api;
  const lbGroups = lb.SecurityGroups ?? [];
  const groups = await describeGroups(ctx);
  for (const group of groups) {
    const rules = (group.IpPermissions ?? []).filter((p) =>
      (p.UserIdGroupPairs ?? []).some((pair) => lbGroups.includes(pair.GroupId ?? '')),
    );
    if (rules.length === 0) continue;
    await awsWrite(
      ctx,
      signal,
      `RevokeSecurityGroupIngress ${group.GroupId ?? ''} (from ${lbGroups.join(',')})`,
      () =>
        api.ec2.send(new RevokeSecurityGroupIngressCommand({ GroupId: group.GroupId, IpPermissions: rules })),
    );
  }
  await awsWrite(ctx, signal, `DeleteLoadBalancer ${name} (classic)`, () =>
    api.elb.send(new DeleteLoadBalancerCommand({ LoadBalancerName: name })),
  );
  for (const group of groups) {
    if (!lbGroups.includes(group.GroupId ?? '') || group.GroupName !== `k8s-elb-${name}`) continue;
    if (!clusterId || !hasClusterTag(group.Tags, clusterId)) continue;
    await awsWrite(ctx, signal, `DeleteSecurityGroup ${group.GroupId ?? ''}`, () =>
      api.ec2.send(new DeleteSecurityGroupCommand({ GroupId: group.GroupId })),
    );
  }
  return true;
}
