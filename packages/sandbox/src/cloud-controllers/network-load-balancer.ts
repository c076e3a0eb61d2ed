import {
  CreateListenerCommand,
  CreateLoadBalancerCommand,
  CreateTargetGroupCommand,
  DeleteLoadBalancerCommand,
  DeleteTargetGroupCommand,
  DeregisterTargetsCommand,
  DescribeListenersCommand,
  DescribeLoadBalancersCommand,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  RegisterTargetsCommand,
  type LoadBalancer,
  type TargetGroup,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { awsWrite } from './aws-write.js';
import type { EnsureResult } from './classic-load-balancer.js';
import { SERVICE_NAME_TAG, ownedTags } from './cluster-tags.js';
import type { ControllerContext } from './controller-context.js';
import { targetGroupName } from './load-balancer-spec.js';
import type { LoadBalancerPlan } from './load-balancer-plan.js';
import { ComponentError } from '../component-error.js';

/** NLB behind a Service (`aws-load-balancer-type: nlb`; cloud-provider-aws ensureLoadBalancerv2). */

export async function describeNlb(ctx: ControllerContext, name: string): Promise<LoadBalancer | undefined> {
  const api = ctx.cloud.api;
  try {
    const out = await api.send(() => api.elbv2.send(new DescribeLoadBalancersCommand({ Names: [name] })));
    return out.LoadBalancers?.[0];
  } catch (error) {
    if ((error as { code?: string }).code === 'LoadBalancerNotFound') return undefined;
    throw error;
  }
}

async function targetGroupsOf(ctx: ControllerContext, lbArn: string): Promise<TargetGroup[]> {
  const api = ctx.cloud.api;
  const out = await api.send(() =>
    api.elbv2.send(new DescribeTargetGroupsCommand({ LoadBalancerArn: lbArn })),
  );
  return out.TargetGroups ?? [];
}

export async function ensureNlb(
  ctx: ControllerContext,
  signal: AbortSignal,
  plan: LoadBalancerPlan,
): Promise<EnsureResult> {
  const api = ctx.cloud.api;
  const tags = ownedTags(plan.tagging.clusterId, plan.tagging.legacy, {
    [SERVICE_NAME_TAG]: plan.serviceKey,
  });
  let lb = await describeNlb(ctx, plan.name);
  const outcome: EnsureResult['outcome'] = lb ? 'adopted' : 'created';
  if (!lb) {
    const created = await awsWrite(
      ctx,
      signal,
      `CreateLoadBalancer ${plan.name} (network, ${plan.serviceKey})`,
      () =>
        api.elbv2.send(
          new CreateLoadBalancerCommand({
            Name: plan.name,
            Type: 'network',
            Scheme: plan.internal ? 'internal' : 'internet-facing',
            Subnets: [...plan.subnetIds],
            Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
          }),
        ),
    );
    lb = created.LoadBalancers?.[0];
    if (!lb) throw new ComponentError(`load balancer ${plan.name} not returned by CreateLoadBalancer`);
  }
  const lbArn = lb.LoadBalancerArn ?? '';
  const listeners =
    (await api.send(() => api.elbv2.send(new DescribeListenersCommand({ LoadBalancerArn: lbArn }))))
      .Listeners ?? [];
  const groups = await targetGroupsOf(ctx, lbArn);
  const [namespace = '', name = ''] = plan.serviceKey.split('/');
  const wanted = plan.instances.map((i) => i.InstanceId ?? '').filter(Boolean);

  for (const mapping of plan.ports) {
    const tgName = targetGroupName(namespace, name, mapping);
    let group = groups.find((g) => g.TargetGroupName === tgName);
    if (!group) {
      const created = await awsWrite(ctx, signal, `CreateTargetGroup ${tgName}`, () =>
        api.elbv2.send(
          new CreateTargetGroupCommand({
            Name: tgName,
            Protocol: mapping.protocol === 'UDP' ? 'UDP' : 'TCP',
            Port: mapping.nodePort,
            VpcId: plan.vpcId,
            TargetType: 'instance',
            HealthCheckProtocol: 'TCP',
            HealthCheckIntervalSeconds: 10,
            HealthyThresholdCount: 3,
            UnhealthyThresholdCount: 3,
            Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
          }),
        ),
      );
      group = created.TargetGroups?.[0];
      if (!group) throw new ComponentError(`target group ${tgName} not returned by CreateTargetGroup`);
    }
    const tgArn = group.TargetGroupArn ?? '';
    if (!listeners.some((l) => l.Port === mapping.port)) {
      await awsWrite(ctx, signal, `CreateListener ${plan.name} :${mapping.port}`, () =>
        api.elbv2.send(
          new CreateListenerCommand({
            LoadBalancerArn: lbArn,
            Protocol: mapping.protocol === 'UDP' ? 'UDP' : 'TCP',
            Port: mapping.port,
            DefaultActions: [{ Type: 'forward', TargetGroupArn: tgArn }],
          }),
        ),
      );
    }
    const health = await api.send(() =>
      api.elbv2.send(new DescribeTargetHealthCommand({ TargetGroupArn: tgArn })),
    );
    const registered = new Set((health.TargetHealthDescriptions ?? []).map((d) => d.Target?.Id ?? ''));
    const add = wanted.filter((id) => !registered.has(id)).sort();
    const remove = [...registered].filter((id) => id && !wanted.includes(id)).sort();
    if (add.length > 0) {
      await awsWrite(ctx, signal, `RegisterTargets ${tgName} ${add.join(',')}`, () =>
        api.elbv2.send(
          new RegisterTargetsCommand({
            TargetGroupArn: tgArn,
            Targets: add.map((Id) => ({ Id, Port: mapping.nodePort })),
          }),
        ),
      );
    }
    if (remove.length > 0) {
      await awsWrite(ctx, signal, `DeregisterTargets ${tgName} ${remove.join(',')}`, () =>
        api.elbv2.send(
          new DeregisterTargetsCommand({ TargetGroupArn: tgArn, Targets: remove.map((Id) => ({ Id })) }),
        ),
      );
    }
  }
  const state = lb.State?.Code;
  const hostname =
    state === 'active' || state === 'provisioning' || state === undefined ? (lb.DNSName ?? '') : '';
  return { hostname, outcome };
}

/** EnsureLoadBalancerDeleted (NLB): the load balancer first, then its target groups. */
export async function deleteNlb(ctx: ControllerContext, signal: AbortSignal, name: string): Promise<boolean> {
  const lb = await describeNlb(ctx, name);
  if (!lb) return false;
  const api = ctx.cloud.api;
  const groups = await targetGroupsOf(ctx, lb.LoadBalancerArn ?? '');
  await awsWrite(ctx, signal, `DeleteLoadBalancer ${name} (network)`, () =>
    api.elbv2.send(new DeleteLoadBalancerCommand({ LoadBalancerArn: lb.LoadBalancerArn })),
  );
  for (const group of groups) {
    await awsWrite(ctx, signal, `DeleteTargetGroup ${group.TargetGroupName ?? ''}`, () =>
      api.elbv2.send(new DeleteTargetGroupCommand({ TargetGroupArn: group.TargetGroupArn })),
    );
  }
  return true;
}
