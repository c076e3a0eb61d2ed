import { InputError } from 'uproot';
import { AwsApiError } from '../protocol/aws-api-error.js';
import type { AwsState } from '../state/aws-state.js';
import type { IpPermissionSpec } from '../state/security-group-store.js';
import type { ParsedAwsSeed, SeedIpPermission, SeedPolicyDocument } from './seed-schema.js';

/** A seed document as the JSON text IAM stores. */
export function policyText(document: SeedPolicyDocument): string {
  return typeof document === 'string' ? document : JSON.stringify(document);
}

function permissionSpec(p: SeedIpPermission): IpPermissionSpec {
  const d = p.description;
  return {
    protocol: p.protocol,
    fromPort: p.fromPort,
    toPort: p.toPort,
    cidrs: p.cidrs.map((cidr) => ({ cidr, description: d })),
    ipv6Cidrs: p.ipv6Cidrs.map((cidr) => ({ cidr, description: d })),
    groups: p.sourceGroupIds.map((groupId) => ({ groupId, description: d })),
  };
}

function toEpoch(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : Date.parse(value);
}

/**
 * Fills a fresh state from a validated seed (parseAwsSeed has already checked every reference). What only the
 * state can check (an address outside its subnet, a subnet outside its VPC) fails as an InputError naming the
 * entry.
 */
export function loadSeed(state: AwsState, seed: ParsedAwsSeed, file?: string): void {
  const each = seedLoader(file);
  loadNetwork(state, seed, each);
  loadIam(state, seed, each);
  each(seed.instances, 'instances', (inst) => {
    state.runInstance({ ...inst, launchTime: toEpoch(inst.launchTime) });
  });
  loadLoadBalancers(state, seed, each);
  each(seed.autoScalingGroups, 'autoScalingGroups', (g) => {
    state.autoscaling.create({
      ...g,
      targetGroupArns: g.targetGroupNames.map((n) => state.elbv2.targetGroupByName(n)!.arn),
    });
  });
  for (const k of seed.accessKeys) {
    state.credentials.addStatic(
      { accessKeyId: k.accessKeyId, secretAccessKey: k.secretAccessKey },
      k.principal,
    );
  }
}

/** Loads each entry of a list; what AWS refuses fails as an InputError naming the entry. */
type SeedLoader = <T>(list: readonly T[], field: string, load: (item: T, index: number) => void) => void;

function seedLoader(file: string | undefined): SeedLoader {
  return (list, field, load) => {
    list.forEach((item, index) => {
      try {
        load(item, index);
      } catch (error) {
        if (!AwsApiError.is(error)) throw error;
        throw new InputError(
          'UP-AWS-SEED-INVALID',
          `aws seed${file ? ` ${file}` : ''}: ${field}[${index}]: ${error.message}`,
          {
            location: { ...(file ? { file } : {}), field: `${field}[${index}]` },
            hint: 'correct the entry so AWS would accept it',
            cause: error,
          },
        );
      }
    });
  };
}

/** The VPC the seed has when an entry names none (parseAwsSeed checked there is exactly one). */
function onlyVpc(state: AwsState): string {
  return state.ec2.vpcs()[0]!.id;
}

/** DHCP options, VPCs, subnets, route tables, security groups and then their rules. */
function loadNetwork(state: AwsState, seed: ParsedAwsSeed, each: SeedLoader): void {
  const { ec2 } = state;
  each(seed.dhcpOptions, 'dhcpOptions', (d) =>
    ec2.network.addDhcpOptions({
      id: d.id,
      configurations: [
        ...(d.domainName === undefined ? [] : [{ key: 'domain-name', values: [d.domainName] }]),
        ...(d.domainNameServers.length > 0
          ? [{ key: 'domain-name-servers', values: d.domainNameServers }]
          : []),
        ...(d.ntpServers.length > 0 ? [{ key: 'ntp-servers', values: d.ntpServers }] : []),
      ],
      tags: d.tags,
    }),
  );
  each(seed.vpcs, 'vpcs', (v) => ec2.network.addVpc(v));
  each(seed.subnets, 'subnets', (s) => ec2.network.addSubnet({ ...s, vpcId: s.vpcId ?? onlyVpc(state) }));
  each(seed.routeTables, 'routeTables', (t) =>
    ec2.network.addRouteTable({ ...t, vpcId: t.vpcId ?? onlyVpc(state) }),
  );
  // Groups first, rules second: rules may name groups declared later.
  const created: string[] = [];
  each(seed.securityGroups, 'securityGroups', (g) => {
    const group = ec2.securityGroups.create(
      { id: g.id, name: g.name, description: g.description, vpcId: g.vpcId ?? onlyVpc(state), tags: g.tags },
      { defaultEgress: g.egress === undefined },
    );
    created.push(group.id);
  });
  each(seed.securityGroups, 'securityGroups', (g, i) => {
    const id = created[i]!;
    if (g.ingress.length > 0) ec2.securityGroups.authorize(id, false, g.ingress.map(permissionSpec));
    if (g.egress && g.egress.length > 0) ec2.securityGroups.authorize(id, true, g.egress.map(permissionSpec));
  });
}

/** Managed policies, roles with their policies, instance profiles with their roles. */
function loadIam(state: AwsState, seed: ParsedAwsSeed, each: SeedLoader): void {
  const { iam } = state;
  each(seed.managedPolicies, 'managedPolicies', (p) => {
    iam.createPolicy({
      name: p.name,
      arn: p.arn,
      path: p.path,
      description: p.description,
      document: policyText(p.document),
    });
  });
  const policyArnFor = (ref: string): string => {
    if (ref.startsWith('arn:')) return ref;
    const policy = seed.managedPolicies.find((p) => p.name.toLowerCase() === ref.toLowerCase())!;
    return policy.arn ?? iam.policyArn(policy.name, policy.path);
  };
  each(seed.roles, 'roles', (r) => {
    iam.createRole({
      name: r.name,
      path: r.path,
      description: r.description,
      assumeRolePolicyDocument:
        r.assumeRolePolicyDocument === undefined ? undefined : policyText(r.assumeRolePolicyDocument),
      tags: r.tags,
    });
    for (const ref of r.attachedPolicies) iam.attachRolePolicy(r.name, policyArnFor(ref));
    for (const [name, doc] of Object.entries(r.inlinePolicies))
      iam.putRolePolicy(r.name, name, policyText(doc));
  });
  each(seed.instanceProfiles, 'instanceProfiles', (p) => {
    iam.createInstanceProfile({ name: p.name, path: p.path, tags: p.tags });
    for (const role of p.roles) iam.addRoleToInstanceProfile(p.name, role);
  });
}

/** Classic load balancers, target groups, and v2 load balancers with listeners forwarding to them. */
function loadLoadBalancers(state: AwsState, seed: ParsedAwsSeed, each: SeedLoader): void {
  each(seed.classicLoadBalancers, 'classicLoadBalancers', (lb) => {
    state.elb.create({
      name: lb.name,
      ...(lb.dnsName ? { dnsName: lb.dnsName } : {}),
      scheme: lb.scheme,
      subnetIds: lb.subnetIds,
      securityGroupIds: lb.securityGroupIds,
      tags: lb.tags,
      listeners: lb.listeners.map((l) => ({
        protocol: l.protocol,
        loadBalancerPort: l.loadBalancerPort,
        instanceProtocol: l.instanceProtocol ?? l.protocol,
        instancePort: l.instancePort,
      })),
    });
    if (lb.instanceIds.length > 0) state.elb.register(lb.name, lb.instanceIds);
  });
  each(seed.targetGroups, 'targetGroups', (tg) => {
    const group = state.elbv2.createTargetGroup({
      name: tg.name,
      protocol: tg.protocol,
      port: tg.port,
      vpcId: tg.vpcId ?? onlyVpc(state),
      targetType: tg.targetType,
      tags: tg.tags,
    });
    if (tg.targets.length > 0) state.elbv2.registerTargets(group.arn, tg.targets);
  });
  each(seed.loadBalancers, 'loadBalancers', (lb) => {
    const created = state.elbv2.createLoadBalancer({
      name: lb.name,
      ...(lb.dnsName ? { dnsName: lb.dnsName } : {}),
      type: lb.type,
      scheme: lb.scheme,
      subnetIds: lb.subnetIds.length > 0 ? lb.subnetIds : firstSubnetPerZone(state),
      securityGroupIds: lb.securityGroupIds,
      tags: lb.tags,
    });
    for (const l of lb.listeners) {
      const tg = state.elbv2.targetGroupByName(l.targetGroup)!;
      state.elbv2.createListener({
        loadBalancerArn: created.arn,
        port: l.port,
        protocol: l.protocol,
        defaultActions: [{ type: 'forward', targetGroupArn: tg.arn }],
      });
    }
  });
}

function firstSubnetPerZone(state: AwsState): string[] {
  const byZone = new Map<string, string>();
  for (const s of state.ec2.subnets())
    if (!byZone.has(s.availabilityZone)) byZone.set(s.availabilityZone, s.id);
  return [...byZone.values()];
}
