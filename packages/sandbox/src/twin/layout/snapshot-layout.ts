import type { ClusterSnapshot, SnapshotInstance } from 'uproot/core';
import {
  isControlPlane,
  isEtcdOnly,
  recordedMachines,
  type RecordedMachine,
} from '../../scenarios/from-snapshot.js';
import type { Scenario } from '../../scenarios/index.js';
import { metaOf, type KubeObject } from '../kube/kube-types.js';
import type { SeedObject } from './aws-seed.js';
import { loadBalancerNameFor } from './aws-seed.js';
import { names, type ClusterLayout, type InstanceLayout, type NodeRole } from './cluster-layout.js';

/**
 * The twin of a `uproot snapshot` record (issue 27): the recorded machines, with their recorded instance ids,
 * addresses, zones, subnets and types, instead of a generated layout; and the recorded account (VPC, subnets,
 * route tables, security groups, DHCP options, instance roles and their policies, load balancers with their
 * DNS names) as the AWS emulator's seed, instead of seed 004's.
 */

const POOL_ORDER: Record<NodeRole, number> = { 'control-plane': 0, etcd: 1, worker: 2 };

function rolesOf(m: RecordedMachine): { role: NodeRole; roles: NodeRole[] } {
  if (isControlPlane(m.node)) {
    const etcd = 'node-role.kubernetes.io/etcd' in m.node.labels;
    return { role: 'control-plane', roles: etcd ? ['etcd', 'control-plane'] : ['control-plane'] };
  }
  if (isEtcdOnly(m.node)) return { role: 'etcd', roles: ['etcd'] };
  return { role: 'worker', roles: ['worker'] };
}

export function snapshotLayout(scenario: Scenario, snapshot: ClusterSnapshot): ClusterLayout {
  const region = scenario.aws.region;
  const recordedSubnets = snapshot.aws?.subnets ?? [];
  const subnets = recordedSubnets.map((s, index) => ({
    index,
    availabilityZone: s.availabilityZone,
    cidr: s.cidrBlock,
  }));
  const subnetIndex = new Map(recordedSubnets.map((s, i) => [s.subnetId, i]));
  const machines = recordedMachines(snapshot)
    .filter((m): m is RecordedMachine & { instance: SnapshotInstance } => m.instance !== undefined)
    .map((m) => ({ ...m, ...rolesOf(m) }))
    // The twin's machine order (control plane, etcd, workers), recorded order within a pool.
    .sort((a, b) => POOL_ORDER[a.role] - POOL_ORDER[b.role]);
  const instances: InstanceLayout[] = machines.map((m, index) => {
    const i = m.instance;
    const naming = names(
      scenario.naming.mode,
      i.privateIpAddress,
      i.instanceId,
      region,
      scenario.naming.dhcpDomain,
    );
    return {
      index,
      role: m.role,
      roles: m.roles,
      instanceId: i.instanceId,
      privateIp: i.privateIpAddress,
      availabilityZone: i.availabilityZone,
      subnetIndex: subnetIndex.get(i.subnetId) ?? 0,
      instanceType: i.instanceType,
      machineName: i.tags.Name ?? m.node.name,
      ...naming,
      // EC2's name as recorded (the generated one assumes EC2's default domain and IP naming).
      privateDnsName: i.privateDnsName,
    };
  });
  return { region, clusterId: scenario.clusterName, vpcCidr: scenario.aws.vpcCidr, subnets, instances };
}

function policySeeds(aws: NonNullable<ClusterSnapshot['aws']>): {
  managedPolicies: SeedObject[];
  roles: SeedObject[];
} {
  const managed = new Map<string, SeedObject>();
  const roles = aws.roles.map((r) => {
    const inline: Record<string, unknown> = {};
    const attached: string[] = [];
    for (const p of r.policies) {
      if (p.kind === 'inline') {
        inline[p.name] = p.document;
        continue;
      }
      // An AWS-managed policy keeps its ARN; one of the account gets the account's ARN from its name.
      const awsManaged = p.arn?.startsWith('arn:aws:iam::aws:') === true;
      managed.set(p.name, { name: p.name, ...(awsManaged ? { arn: p.arn } : {}), document: p.document });
      attached.push(awsManaged ? p.arn! : p.name);
    }
    return { name: r.name, attachedPolicies: attached, inlinePolicies: inline };
  });
  return { managedPolicies: [...managed.values()], roles };
}

/** The recorded account as the AWS emulator's seed; `services` are the twin's Services (their new uids). */
export function snapshotAwsSeed(
  scenario: Scenario,
  snapshot: ClusterSnapshot,
  layout: ClusterLayout,
  services: readonly { object: KubeObject; ports: readonly { port: number; nodePort: number }[] }[],
): SeedObject {
  const aws = snapshot.aws;
  if (!aws) return { region: scenario.aws.region, enforceIam: scenario.aws.enforceIam };
  const groupIds = new Set(aws.securityGroups.map((g) => g.groupId));
  const instanceIds = new Set(layout.instances.map((i) => i.instanceId));
  const byId = new Map(layout.instances.map((i) => [i.instanceId, i]));
  const { managedPolicies, roles } = policySeeds(aws);
  const lbs = loadBalancerSeeds(snapshot, services, groupIds, instanceIds);
  // The in-tree provider finds an ELB's own group by name (`k8s-elb-<load balancer name>`): it follows the rename.
  const renamed = new Map(lbs.renamed.map(([from, to]) => [`k8s-elb-${from}`, `k8s-elb-${to}`]));
  return {
    region: aws.region,
    ...(/^\d{12}$/.test(aws.accountId) ? { accountId: aws.accountId } : {}),
    enforceIam: scenario.aws.enforceIam,
    dhcpOptions: aws.vpcs
      .filter((v) => v.dhcpOptionsId !== 'default')
      .map((v) => ({ id: v.dhcpOptionsId, ...(v.domainName ? { domainName: v.domainName } : {}) })),
    vpcs: aws.vpcs.map((v) => ({
      id: v.vpcId,
      cidrBlock: v.cidrBlock,
      dhcpOptionsId: v.dhcpOptionsId,
      tags: v.tags,
    })),
    subnets: aws.subnets.map((s) => ({
      id: s.subnetId,
      vpcId: s.vpcId,
      cidrBlock: s.cidrBlock,
      availabilityZone: s.availabilityZone,
      tags: s.tags,
    })),
    routeTables: aws.routeTables.map((t) => ({
      id: t.routeTableId,
      vpcId: t.vpcId,
      main: t.main,
      subnetIds: t.subnetIds,
      tags: t.tags,
    })),
    securityGroups: aws.securityGroups.map((g) => ({
      id: g.groupId,
      name: renamed.get(g.groupName) ?? g.groupName,
      ...(g.vpcId ? { vpcId: g.vpcId } : {}),
      tags: g.tags,
    })),
    managedPolicies,
    roles,
    instanceProfiles: aws.instanceProfiles.map((p) => ({ name: p.name, roles: p.roles })),
    instances: aws.instances
      .filter((i) => instanceIds.has(i.instanceId))
      .map((i) => {
        const machine = byId.get(i.instanceId)!;
        return {
          id: i.instanceId,
          privateIpAddress: i.privateIpAddress,
          privateDnsName: i.privateDnsName,
          subnetId: i.subnetId,
          availabilityZone: i.availabilityZone,
          instanceType: i.instanceType,
          securityGroupIds: i.securityGroupIds,
          ...(i.iamInstanceProfile ? { iamInstanceProfile: i.iamInstanceProfile } : {}),
          hostname: machine.imdsHostname,
          localHostname: machine.imdsLocalHostname,
          ...(i.metadataOptions ? { metadataOptions: i.metadataOptions } : {}),
          tags: i.tags,
        };
      }),
    classicLoadBalancers: lbs.classicLoadBalancers,
    targetGroups: lbs.targetGroups,
    loadBalancers: lbs.loadBalancers,
  };
}

/**
 * Load balancers: one a Service owns (its hostname) is named after the twin's Service, as the in-tree
 * provider names it (`a` + uid), so the twin's service controller finds it; it keeps its recorded DNS name,
 * tags and instances, with the listeners on the twin's node ports. Others are seeded as recorded.
 */
function loadBalancerSeeds(
  snapshot: ClusterSnapshot,
  services: readonly { object: KubeObject; ports: readonly { port: number; nodePort: number }[] }[],
  groupIds: ReadonlySet<string>,
  instanceIds: ReadonlySet<string>,
): {
  classicLoadBalancers: SeedObject[];
  targetGroups: SeedObject[];
  loadBalancers: SeedObject[];
  renamed: [string, string][];
} {
  const aws = snapshot.aws!;
  const twinService = new Map(
    services.map((s) => [`${metaOf(s.object).namespace ?? 'default'}/${metaOf(s.object).name ?? ''}`, s]),
  );
  const owner = new Map<string, (typeof services)[number]>();
  for (const recorded of snapshot.kubernetes.loadBalancerServices) {
    const svc = twinService.get(`${recorded.namespace}/${recorded.name}`);
    if (svc) for (const hostname of recorded.hostnames) owner.set(hostname, svc);
  }
  const classic: SeedObject[] = [];
  const v2: SeedObject[] = [];
  const targetGroups = new Map<string, SeedObject>();
  const renamed: [string, string][] = [];
  for (const lb of aws.loadBalancers) {
    const svc = owner.get(lb.dnsName);
    const common = {
      dnsName: lb.dnsName,
      scheme: lb.scheme,
      subnetIds: lb.subnetIds,
      securityGroupIds: lb.securityGroupIds.filter((g) => groupIds.has(g)),
      tags: lb.tags,
    };
    if (lb.type !== 'classic') {
      // A target group may serve several load balancers: seeded once, by name.
      for (const tg of lb.targetGroups) targetGroups.set(tg.name, targetGroupSeed(tg, instanceIds));
      const listeners = lb.listeners.flatMap((l) =>
        l.targetGroup ? [{ port: l.port, protocol: l.protocol, targetGroup: l.targetGroup }] : [],
      );
      // An NLB a Service owns is named as the in-tree provider names it (`a` + uid: k8s.io/cloud-provider
      // DefaultLoadBalancerName, which cloud-provider-aws EnsureLoadBalancer passes to ensureLoadBalancerv2),
      // so the twin's service controller adopts it; its target groups' names (namespace, name, port, node
      // port) find the recorded ones.
      const v2Name =
        svc && lb.type === 'network' ? loadBalancerNameFor(metaOf(svc.object).uid ?? '') : lb.name;
      v2.push({ name: v2Name, type: lb.type, ...common, listeners });
      continue;
    }
    const listeners = svc
      ? svc.ports.map((p) => ({
          protocol: 'TCP',
          loadBalancerPort: p.port,
          instanceProtocol: 'TCP',
          instancePort: p.nodePort,
        }))
      : lb.listeners
          .filter((l) => l.instancePort !== undefined)
          .map((l) => ({ protocol: l.protocol, loadBalancerPort: l.port, instancePort: l.instancePort! }));
    const name = svc ? loadBalancerNameFor(metaOf(svc.object).uid ?? '') : lb.name;
    if (name !== lb.name) renamed.push([lb.name, name]);
    classic.push({
      name,
      ...common,
      listeners,
      instanceIds: lb.instanceIds.filter((i) => instanceIds.has(i)),
    });
  }
  return {
    classicLoadBalancers: classic,
    targetGroups: [...targetGroups.values()],
    loadBalancers: v2,
    renamed,
  };
}

type RecordedTargetGroup = NonNullable<
  ClusterSnapshot['aws']
>['loadBalancers'][number]['targetGroups'][number];

/** A recorded target group as the emulator's seed: instance targets only where the twin runs the instance. */
function targetGroupSeed(tg: RecordedTargetGroup, instanceIds: ReadonlySet<string>): SeedObject {
  return {
    name: tg.name,
    protocol: tg.protocol,
    port: tg.port,
    targetType: tg.targetType,
    ...(tg.vpcId ? { vpcId: tg.vpcId } : {}),
    targets: tg.targets
      .filter((t) => tg.targetType !== 'instance' || instanceIds.has(t.id))
      .map((t) => ({ id: t.id, ...(t.port ? { port: t.port } : {}) })),
  };
}
