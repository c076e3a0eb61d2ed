import type { Random } from 'uproot';
import type { NamingMode, Scenario } from '../../scenarios/index.js';

/**
 * The physical shape of a twin, decided once from the scenario: which instances exist, their addresses and
 * names as EC2, the OS and instance metadata report them. Pure and deterministic for a scenario and seed.
 */

/** Kubernetes roles as Rancher and RKE name them per machine (RKE2: etcd, control-plane, worker). */
export type NodeRole = 'control-plane' | 'etcd' | 'worker';

export interface InstanceLayout {
  readonly index: number;
  /**
   * The machine's pool, by its main role: `control-plane` for control-plane machines (with or without
   * etcd), `etcd` for etcd-only machines, `worker` otherwise. `roles` lists every role it has.
   */
  readonly role: NodeRole;
  /** Every role of the machine: `['etcd', 'control-plane']` when combined, one role in separate pools. */
  readonly roles: readonly NodeRole[];
  readonly instanceId: string;
  readonly privateIp: string;
  readonly privateDnsName: string;
  readonly availabilityZone: string;
  readonly subnetIndex: number;
  readonly instanceType: string;
  /** The OS hostname (`hostname`; what an external kubelet uses when nothing overrides it). */
  readonly hostname: string;
  /** IMDS `meta-data/hostname`. */
  readonly imdsHostname: string;
  /** IMDS `meta-data/local-hostname`. */
  readonly imdsLocalHostname: string;
  /** True once the machine found that its metadata refuses token-less (IMDSv1) GETs (`HttpTokens: required`). */
  readonly imdsV1Refused?: boolean;
  /** A stable per-machine name (RKE2's machine, RKE's node entry), independent of the node name. */
  readonly machineName: string;
}

export interface SubnetLayout {
  readonly index: number;
  readonly availabilityZone: string;
  readonly cidr: string;
}

export interface ClusterLayout {
  readonly region: string;
  readonly clusterId: string;
  readonly vpcCidr: string;
  readonly subnets: readonly SubnetLayout[];
  readonly instances: readonly InstanceLayout[];
}

export function ipToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return ((p[0]! << 24) >>> 0) + (p[1]! << 16) + (p[2]! << 8) + p[3]!;
}

export function intToIp(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** EC2's private DNS domain: `ec2.internal` in us-east-1, `<region>.compute.internal` elsewhere. */
export function privateDnsDomain(region: string): string {
  return region === 'us-east-1' ? 'ec2.internal' : `${region}.compute.internal`;
}

function hex(random: Random, digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

/** One /20 subnet per zone inside the VPC (room for 4,000 nodes per zone). */
function subnetsFor(vpcCidr: string, zones: readonly string[]): SubnetLayout[] {
  const base = ipToInt(vpcCidr.split('/')[0]!);
  return zones.map((availabilityZone, index) => ({
    index,
    availabilityZone,
    cidr: `${intToIp(base + index * 4096)}/20`,
  }));
}

export function names(
  mode: NamingMode,
  ip: string,
  instanceId: string,
  region: string,
  dhcpDomain: string,
): Pick<InstanceLayout, 'privateDnsName' | 'hostname' | 'imdsHostname' | 'imdsLocalHostname'> {
  const domain = privateDnsDomain(region);
  const ipHost = `ip-${ip.replace(/\./g, '-')}`;
  switch (mode) {
    case 'ip-dns': {
      const dns = `${ipHost}.${domain}`;
      return { privateDnsName: dns, hostname: dns, imdsHostname: dns, imdsLocalHostname: dns };
    }
    case 'short-hostname': {
      // An empty DHCP domain: the OS knows only the short name; instance metadata still reports EC2's.
      const dns = `${ipHost}.${domain}`;
      return { privateDnsName: dns, hostname: ipHost, imdsHostname: dns, imdsLocalHostname: dns };
    }
    case 'custom-dhcp-domain': {
      const custom = `${ipHost}.${dhcpDomain}`;
      return {
        privateDnsName: `${ipHost}.${domain}`,
        hostname: custom,
        imdsHostname: custom,
        imdsLocalHostname: custom,
      };
    }
    case 'resource-name': {
      const dns = `${instanceId}.${domain}`;
      return { privateDnsName: dns, hostname: dns, imdsHostname: dns, imdsLocalHostname: dns };
    }
  }
}

export interface NodeCounts {
  readonly controlPlane: number;
  readonly workers: number;
  /** Dedicated etcd machines; when there are any, the control-plane machines do not carry etcd. */
  readonly etcd?: number;
}

/** The pools in machine order: control plane, then dedicated etcd, then workers. */
function pools(counts: NodeCounts): { role: NodeRole; roles: NodeRole[]; name: string; count: number }[] {
  const separateEtcd = (counts.etcd ?? 0) > 0;
  return [
    {
      role: 'control-plane',
      roles: separateEtcd ? ['control-plane'] : ['etcd', 'control-plane'],
      name: 'cp',
      count: counts.controlPlane,
    },
    { role: 'etcd', roles: ['etcd'], name: 'etcd', count: counts.etcd ?? 0 },
    { role: 'worker', roles: ['worker'], name: 'worker', count: counts.workers },
  ];
}

/** True when the machine has the role (a combined control-plane machine has etcd too). */
export function hasRole(instance: Pick<InstanceLayout, 'roles'>, role: NodeRole): boolean {
  return instance.roles.includes(role);
}

export function planClusterLayout(scenario: Scenario, random: Random, nodeCount?: NodeCounts): ClusterLayout {
  const region = scenario.aws.region;
  const zones = scenario.aws.availabilityZones ?? ['a', 'b', 'c'].map((l) => `${region}${l}`);
  const subnets = subnetsFor(scenario.aws.vpcCidr, zones);
  const counts = nodeCount ?? scenario.nodes;
  const instances: InstanceLayout[] = [];
  const perSubnet = new Array<number>(subnets.length).fill(0);
  const usedIds = new Set<string>();
  const poolSuffix = hex(random, 5);
  const machines = pools(counts).flatMap((pool) =>
    Array.from({ length: pool.count }, (_, ordinal) => ({ ...pool, ordinal })),
  );
  for (const [index, { role, roles, name: pool, ordinal }] of machines.entries()) {
    const subnet = subnets[index % subnets.length]!;
    const offset = 10 + perSubnet[subnet.index]!++;
    const privateIp = intToIp(ipToInt(subnet.cidr.split('/')[0]!) + offset);
    let instanceId = `i-0${hex(random, 16)}`;
    while (usedIds.has(instanceId)) instanceId = `i-0${hex(random, 16)}`;
    usedIds.add(instanceId);
    instances.push({
      index,
      role,
      roles,
      instanceId,
      privateIp,
      availabilityZone: subnet.availabilityZone,
      subnetIndex: subnet.index,
      instanceType:
        role === 'worker'
          ? (scenario.aws.workerInstanceType ?? scenario.aws.instanceType)
          : scenario.aws.instanceType,
      machineName: `${scenario.clusterName}-${pool}-${poolSuffix}-${ordinal}`,
      ...names(scenario.naming.mode, privateIp, instanceId, region, scenario.naming.dhcpDomain),
    });
  }
  return { region, clusterId: scenario.clusterName, vpcCidr: scenario.aws.vpcCidr, subnets, instances };
}
