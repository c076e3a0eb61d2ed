/**
 * The AWS reads `uproot snapshot` adds to preflight's (aws-snapshot.ts): the VPCs' route tables and every load
 * balancer with its listeners, registered instances and tags, and the ELBv2 ones' target groups and targets.
 * Describe calls only, paged, batched by VPC or by 20 load balancers (DescribeTags' limit); per load balancer
 * or target group where the API takes only one (DescribeListeners, DescribeTargetHealth); never per node.
 * Each failure becomes a reason.
 */
import { DescribeRouteTablesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import {
  DescribeLoadBalancersCommand as DescribeClassic,
  DescribeTagsCommand as DescribeClassicTags,
  type ElasticLoadBalancingClient,
} from '@aws-sdk/client-elastic-load-balancing';
import {
  DescribeListenersCommand,
  DescribeLoadBalancersCommand as DescribeV2,
  DescribeTagsCommand as DescribeV2Tags,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  type DescribeLoadBalancersCommandOutput as V2Output,
  type ElasticLoadBalancingV2Client,
  type LoadBalancer as V2LoadBalancer,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { Readable } from '../../core/model/readable.js';
import type { SecurityGroupFacts } from '../../core/model/snapshot.js';
import type { SnapshotAws } from '../../core/snapshot/index.js';
import type { AwsClients } from './aws-clients.js';
import { awsFailureReason } from './aws-errors.js';
import { chunk, describeSecurityGroups, FILTER_VALUES_PER_CALL, tagsOf } from './ec2-reader.js';

export type RouteTableRecord = SnapshotAws['routeTables'][number];
export type LoadBalancerRecord = SnapshotAws['loadBalancers'][number];

export interface AwsSnapshotExtras {
  readonly routeTables: Readable<RouteTableRecord[]>;
  readonly loadBalancers: Readable<LoadBalancerRecord[]>;
  /** The load balancers' security groups the nodes' instances do not have (`k8s-elb-…`). */
  readonly loadBalancerSecurityGroups: Readable<SecurityGroupFacts[]>;
}

export async function readAwsSnapshotExtras(
  aws: AwsClients,
  vpcIds: readonly string[],
  knownGroupIds: readonly string[],
): Promise<AwsSnapshotExtras> {
  const [routeTables, loadBalancers] = await Promise.all([
    attempt('ec2:DescribeRouteTables', () => describeRouteTables(aws.ec2, vpcIds)),
    attempt('elasticloadbalancing:DescribeLoadBalancers', async () => [
      ...(await describeClassic(aws.elb)),
      ...(await describeV2(aws.elbv2)),
    ]),
  ]);
  const known = new Set(knownGroupIds);
  const lbGroups =
    loadBalancers.state === 'ok'
      ? [...new Set(loadBalancers.value.flatMap((lb) => lb.securityGroupIds))].filter((g) => !known.has(g))
      : [];
  const loadBalancerSecurityGroups: Readable<SecurityGroupFacts[]> =
    lbGroups.length > 0
      ? await attempt('ec2:DescribeSecurityGroups', () => describeSecurityGroups(aws.ec2, lbGroups))
      : { state: 'ok', value: [] };
  return { routeTables, loadBalancers, loadBalancerSecurityGroups };
}

async function describeRouteTables(ec2: EC2Client, vpcIds: readonly string[]): Promise<RouteTableRecord[]> {
  const out: RouteTableRecord[] = [];
  for (const batch of chunk([...new Set(vpcIds)], FILTER_VALUES_PER_CALL)) {
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeRouteTablesCommand({
          Filters: [{ Name: 'vpc-id', Values: batch }],
          MaxResults: 100,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      for (const t of page.RouteTables ?? []) {
        const associations = t.Associations ?? [];
        out.push({
          routeTableId: t.RouteTableId ?? '',
          vpcId: t.VpcId ?? '',
          main: associations.some((a) => a.Main === true),
          subnetIds: associations.map((a) => a.SubnetId).filter((s): s is string => !!s),
          tags: tagsOf(t.Tags),
        });
      }
      token = page.NextToken || undefined;
    } while (token);
  }
  return out;
}

async function describeClassic(elb: ElasticLoadBalancingClient): Promise<LoadBalancerRecord[]> {
  const out: LoadBalancerRecord[] = [];
  let marker: string | undefined;
  do {
    const page = await elb.send(
      new DescribeClassic({ PageSize: 400, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const lb of page.LoadBalancerDescriptions ?? []) {
      out.push({
        name: lb.LoadBalancerName ?? '',
        dnsName: lb.DNSName ?? '',
        type: 'classic',
        scheme: lb.Scheme === 'internal' ? 'internal' : 'internet-facing',
        subnetIds: lb.Subnets ?? [],
        securityGroupIds: lb.SecurityGroups ?? [],
        listeners: (lb.ListenerDescriptions ?? []).map((d) => ({
          port: d.Listener?.LoadBalancerPort ?? 0,
          protocol: d.Listener?.Protocol ?? 'TCP',
          ...(d.Listener?.InstancePort ? { instancePort: d.Listener.InstancePort } : {}),
        })),
        instanceIds: (lb.Instances ?? []).map((i) => i.InstanceId ?? '').filter(Boolean),
        targetGroups: [],
        tags: {},
      });
    }
    marker = page.NextMarker || undefined;
  } while (marker);
  // DescribeTags takes at most 20 names a call.
  for (const batch of chunk(out, 20)) {
    const tags = await elb.send(new DescribeClassicTags({ LoadBalancerNames: batch.map((lb) => lb.name) }));
    for (const d of tags.TagDescriptions ?? []) {
      const lb = batch.find((b) => b.name === d.LoadBalancerName);
      if (lb) Object.assign(lb.tags, tagsOf(d.Tags));
    }
  }
  return out;
}

async function describeV2(elbv2: ElasticLoadBalancingV2Client): Promise<LoadBalancerRecord[]> {
  const found: V2LoadBalancer[] = [];
  let marker: string | undefined;
  do {
    const page: V2Output = await elbv2.send(
      new DescribeV2({ PageSize: 400, ...(marker ? { Marker: marker } : {}) }),
    );
    found.push(...(page.LoadBalancers ?? []));
    marker = page.NextMarker || undefined;
  } while (marker);
  if (found.length === 0) return [];
  const groups = await targetGroupsByArn(elbv2);
  const out: LoadBalancerRecord[] = [];
  for (const lb of found) {
    const arn = lb.LoadBalancerArn ?? '';
    // DescribeListeners takes one load balancer a call (or listener ARNs, which only it gives).
    const listeners = await elbv2.send(new DescribeListenersCommand({ LoadBalancerArn: arn }));
    const own = [...groups.values()].filter((g) => g.loadBalancerArns.includes(arn));
    out.push({
      name: lb.LoadBalancerName ?? '',
      dnsName: lb.DNSName ?? '',
      type: lb.Type === 'application' ? 'application' : 'network',
      scheme: lb.Scheme === 'internal' ? 'internal' : 'internet-facing',
      subnetIds: (lb.AvailabilityZones ?? []).map((z) => z.SubnetId ?? '').filter(Boolean),
      securityGroupIds: lb.SecurityGroups ?? [],
      listeners: (listeners.Listeners ?? []).map((l) => {
        const forward = (l.DefaultActions ?? []).find((a) => a.Type === 'forward');
        const tgArn = forward?.TargetGroupArn ?? forward?.ForwardConfig?.TargetGroups?.[0]?.TargetGroupArn;
        const tg = tgArn ? groups.get(tgArn) : undefined;
        return {
          port: l.Port ?? 0,
          protocol: l.Protocol ?? 'TCP',
          ...(tg ? { targetGroup: tg.record.name } : {}),
        };
      }),
      instanceIds: [
        ...new Set(
          own.flatMap((g) => (g.record.targetType === 'instance' ? g.record.targets.map((t) => t.id) : [])),
        ),
      ],
      targetGroups: own.map((g) => g.record),
      tags: {},
    });
  }
  for (const batch of chunk(
    found.map((lb, i) => ({ arn: lb.LoadBalancerArn ?? '', record: out[i]! })),
    20,
  )) {
    const tags = await elbv2.send(new DescribeV2Tags({ ResourceArns: batch.map((b) => b.arn) }));
    for (const d of tags.TagDescriptions ?? []) {
      const entry = batch.find((b) => b.arn === d.ResourceArn);
      if (entry) Object.assign(entry.record.tags, tagsOf(d.Tags));
    }
  }
  return out;
}

type TargetGroupRecord = LoadBalancerRecord['targetGroups'][number];

/**
 * Every target group of the account, paged (not one call per load balancer), with its targets
 * (DescribeTargetHealth, one call per group: the API takes one group a call).
 */
async function targetGroupsByArn(
  elbv2: ElasticLoadBalancingV2Client,
): Promise<Map<string, { record: TargetGroupRecord; loadBalancerArns: readonly string[] }>> {
  const groups = new Map<string, { record: TargetGroupRecord; loadBalancerArns: readonly string[] }>();
  let marker: string | undefined;
  do {
    const page = await elbv2.send(
      new DescribeTargetGroupsCommand({ PageSize: 400, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const g of page.TargetGroups ?? []) {
      if (!g.TargetGroupArn || (g.LoadBalancerArns ?? []).length === 0) continue;
      // Lambda and ALB targets are not modelled by the replay: only instance and ip groups are recorded.
      if (g.TargetType !== 'instance' && g.TargetType !== 'ip') continue;
      groups.set(g.TargetGroupArn, {
        record: {
          name: g.TargetGroupName ?? '',
          protocol: g.Protocol ?? 'TCP',
          port: g.Port ?? 1,
          targetType: g.TargetType,
          ...(g.VpcId ? { vpcId: g.VpcId } : {}),
          targets: [],
        },
        loadBalancerArns: g.LoadBalancerArns ?? [],
      });
    }
    marker = page.NextMarker || undefined;
  } while (marker);
  for (const [arn, g] of groups) {
    const health = await elbv2.send(new DescribeTargetHealthCommand({ TargetGroupArn: arn }));
    for (const t of health.TargetHealthDescriptions ?? [])
      if (t.Target?.Id)
        g.record.targets.push({ id: t.Target.Id, ...(t.Target.Port ? { port: t.Target.Port } : {}) });
  }
  return groups;
}

async function attempt<T>(call: string, read: () => Promise<T>): Promise<Readable<T>> {
  try {
    return { state: 'ok', value: await read() };
  } catch (error) {
    return { state: 'unavailable', reason: awsFailureReason(error, call) };
  }
}
