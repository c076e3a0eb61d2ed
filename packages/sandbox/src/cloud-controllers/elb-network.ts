import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  CreateTagsCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  type Instance,
  type IpPermission,
  type RouteTable,
  type SecurityGroup,
  type Subnet,
} from '@aws-sdk/client-ec2';
import { awsWrite } from './aws-write.js';
import { CloudError, type ClusterTagging } from './aws-cloud.js';
import {
  CLUSTER_TAG_PREFIX,
  hasClusterTag,
  INTERNAL_ELB_SUBNET_TAG,
  ownedTags,
  PUBLIC_ELB_SUBNET_TAG,
  tagValue,
} from './cluster-tags.js';
import type { ControllerContext } from './controller-context.js';
import type { PortMapping } from './load-balancer-spec.js';

/** Subnets, security groups and instance ingress around a load balancer (cloud-provider-aws aws.go). */

/**
 * findELBSubnets: the VPC's subnets that carry our cluster tag or no cluster tag at all, one per AZ.
 * Internet-facing load balancers need public subnets: upstream decides that by an internet-gateway route;
 * the sandbox also accepts the `kubernetes.io/role/elb` tag as the mark of a public subnet, since its seeds
 * rarely model gateways. Ties within an AZ: the role tag, then the cluster tag, then the lowest id.
 */
export function chooseElbSubnets(
  subnets: readonly Subnet[],
  routeTables: readonly RouteTable[],
  clusterId: string | undefined,
  internal: boolean,
): string[] {
  const roleTag = internal ? INTERNAL_ELB_SUBNET_TAG : PUBLIC_ELB_SUBNET_TAG;
  const byAz = new Map<string, Subnet>();
  for (const subnet of subnets) {
    const az = subnet.AvailabilityZone ?? '';
    const id = subnet.SubnetId ?? '';
    if (!az || !id) continue;
    const mine =
      hasClusterTag(subnet.Tags, clusterId) ||
      !(subnet.Tags ?? []).some((t) => t.Key?.startsWith(CLUSTER_TAG_PREFIX));
    if (!mine) continue;
    if (!internal && !isPublic(subnet, routeTables)) continue;
    const existing = byAz.get(az);
    if (!existing) {
      byAz.set(az, subnet);
      continue;
    }
    const has = (s: Subnet): boolean => tagValue(s.Tags, roleTag) !== undefined;
    if (has(existing) !== has(subnet)) {
      if (has(subnet)) byAz.set(az, subnet);
      continue;
    }
    const tagged = (s: Subnet): boolean => Boolean(clusterId) && hasClusterTag(s.Tags, clusterId);
    if (tagged(existing) !== tagged(subnet)) {
      if (tagged(subnet)) byAz.set(az, subnet);
      continue;
    }
    if ((existing.SubnetId ?? '') > id) byAz.set(az, subnet);
  }
  return [...byAz.keys()].sort().map((az) => byAz.get(az)?.SubnetId ?? '');
}

function isPublic(subnet: Subnet, routeTables: readonly RouteTable[]): boolean {
  if (tagValue(subnet.Tags, PUBLIC_ELB_SUBNET_TAG) !== undefined) return true;
  const id = subnet.SubnetId;
  const table =
    routeTables.find((t) => (t.Associations ?? []).some((a) => a.SubnetId === id)) ??
    routeTables.find((t) => t.VpcId === subnet.VpcId && (t.Associations ?? []).some((a) => a.Main));
  return (table?.Routes ?? []).some((r) => (r.GatewayId ?? '').startsWith('igw'));
}

export async function findElbSubnets(
  ctx: ControllerContext,
  vpcId: string,
  tagging: ClusterTagging,
  internal: boolean,
): Promise<string[]> {
  const api = ctx.cloud.api;
  const vpcFilter = [{ Name: 'vpc-id', Values: [vpcId] }];
  const subnets = await api.send(() => api.ec2.send(new DescribeSubnetsCommand({ Filters: vpcFilter })));
  const tables = await api.send(() => api.ec2.send(new DescribeRouteTablesCommand({ Filters: vpcFilter })));
  const chosen = chooseElbSubnets(
    subnets.Subnets ?? [],
    tables.RouteTables ?? [],
    tagging.clusterId,
    internal,
  );
  if (chosen.length === 0)
    throw new CloudError('Other', 'could not find any suitable subnets for creating the ELB');
  return chosen;
}

/**
 * findSecurityGroupForInstance: the one cluster-tagged group of the instance, else its single untagged one.
 * Two tagged groups is the error users meet when a second group was tagged by hand.
 */
export function securityGroupForInstance(
  instance: Instance,
  tagged: ReadonlySet<string>,
): { id: string; name: string } | undefined {
  const id = instance.InstanceId ?? '';
  const groups = (instance.SecurityGroups ?? []).filter((g) => g.GroupId);
  const mine = groups.filter((g) => tagged.has(g.GroupId ?? ''));
  if (mine.length > 1) {
    const list = mine.map((g) => `${g.GroupId}(${g.GroupName ?? ''}) `).join('');
    throw new CloudError(
      'Other',
      `Multiple tagged security groups found for instance ${id}; ensure only the k8s security group is tagged; the tagged groups were ${list}`,
    );
  }
  if (mine[0]) return { id: mine[0].GroupId ?? '', name: mine[0].GroupName ?? '' };
  if (groups.length > 1) {
    throw new CloudError(
      'Other',
      `Multiple untagged security groups found for instance ${id}; ensure the k8s security group is tagged`,
    );
  }
  return groups[0] ? { id: groups[0].GroupId ?? '', name: groups[0].GroupName ?? '' } : undefined;
}

async function describeGroups(
  ctx: ControllerContext,
  filters?: { Name: string; Values: string[] }[],
): Promise<SecurityGroup[]> {
  const api = ctx.cloud.api;
  const out = await api.send(() =>
    api.ec2.send(new DescribeSecurityGroupsCommand(filters ? { Filters: filters } : {})),
  );
  return out.SecurityGroups ?? [];
}

/**
 * buildELBSecurityGroupList + setSecurityGroupIngress: the load balancer's own group `k8s-elb-<name>`,
 * created and tagged when missing, open on the service ports (and ICMP 3-4 for MTU discovery).
 */
export async function ensureLoadBalancerSecurityGroup(
  ctx: ControllerContext,
  signal: AbortSignal,
  args: {
    lbName: string;
    serviceKey: string;
    vpcId: string;
    tagging: ClusterTagging;
    ports: readonly PortMapping[];
  },
): Promise<string> {
  const groupName = `k8s-elb-${args.lbName}`;
  const existing = await describeGroups(ctx, [
    { Name: 'group-name', Values: [groupName] },
    { Name: 'vpc-id', Values: [args.vpcId] },
  ]);
  let group = existing[0];
  const api = ctx.cloud.api;
  if (!group) {
    const created = await awsWrite(ctx, signal, `CreateSecurityGroup ${groupName}`, () =>
      api.ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: groupName,
          Description: `Security group for Kubernetes ELB ${args.lbName} (${args.serviceKey})`,
          VpcId: args.vpcId,
        }),
      ),
    );
    const tags = ownedTags(args.tagging.clusterId, args.tagging.legacy);
    await awsWrite(ctx, signal, `CreateTags ${created.GroupId ?? ''}`, () =>
      api.ec2.send(
        new CreateTagsCommand({
          Resources: [created.GroupId ?? ''],
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      ),
    );
    group = { GroupId: created.GroupId, GroupName: groupName, IpPermissions: [] };
  }
  const groupId = group.GroupId ?? '';
  const wanted: IpPermission[] = [
    ...args.ports.map((p) => ({
      IpProtocol: p.protocol.toLowerCase(),
      FromPort: p.port,
      ToPort: p.port,
      IpRanges: [{ CidrIp: '0.0.0.0/0' }],
    })),
    { IpProtocol: 'icmp', FromPort: 3, ToPort: 4, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
  ];
  const missing = wanted.filter((w) => !(group.IpPermissions ?? []).some((h) => samePermission(h, w)));
  if (missing.length > 0) {
    await awsWrite(ctx, signal, `AuthorizeSecurityGroupIngress ${groupId} (${missing.length} rules)`, () =>
      api.ec2.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: missing })),
    );
  }
  return groupId;
}

function samePermission(have: IpPermission, want: IpPermission): boolean {
  return (
    (have.IpProtocol ?? '') === (want.IpProtocol ?? '') &&
    have.FromPort === want.FromPort &&
    have.ToPort === want.ToPort &&
    (want.IpRanges ?? []).every((r) => (have.IpRanges ?? []).some((h) => h.CidrIp === r.CidrIp))
  );
}

/**
 * updateInstanceSecurityGroupsForLoadBalancer (adding side): the instances' security groups (one each, see
 * securityGroupForInstance) allow all traffic from the load balancer's group. Stale rules are not revoked
 * here; deleting the load balancer revokes its rules.
 */
export async function openInstanceSecurityGroups(
  ctx: ControllerContext,
  signal: AbortSignal,
  lbGroupId: string,
  instances: readonly Instance[],
  tagging: ClusterTagging,
): Promise<void> {
  const all = await describeGroups(ctx);
  const tagged = new Set(
    all
      .filter((g) => tagging.clusterId && hasClusterTag(g.Tags, tagging.clusterId))
      .map((g) => g.GroupId ?? ''),
  );
  const byId = new Map(all.map((g) => [g.GroupId ?? '', g]));
  const targets = new Set<string>();
  for (const instance of instances) {
    const group = securityGroupForInstance(instance, tagged);
    if (group) targets.add(group.id);
  }
  const api = ctx.cloud.api;
  for (const groupId of [...targets].sort()) {
    const group = byId.get(groupId);
    const open = (group?.IpPermissions ?? []).some((p) =>
      (p.UserIdGroupPairs ?? []).some((pair) => pair.GroupId === lbGroupId),
    );
    if (open) continue;
    await awsWrite(ctx, signal, `AuthorizeSecurityGroupIngress ${groupId} (from ${lbGroupId})`, () =>
      api.ec2.send(
        new AuthorizeSecurityGroupIngressCommand({
          GroupId: groupId,
          IpPermissions: [{ IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: lbGroupId }] }],
        }),
      ),
    );
  }
}

export { describeGroups };
