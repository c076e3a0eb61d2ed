import type { Random } from '../../../clock/index.js';
import type { NamingMode, Scenario } from '../../scenarios/index.js';

/**
 * The physical shape of a twin, decided once from the scenario: which instances exist, their addresses and
 * names as EC2, the OS and instance metadata report them. Pure and deterministic for a scenario and seed.
 */

export type NodeRole = 'control-plane' | 'worker';

export interface InstanceLayout {
  readonly index: number;
  readonly role: NodeRole;
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

function names(
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

export function planClusterLayout(
  scenario: Scenario,
  random: Random,
  nodeCount?: { controlPlane: number; workers: number },
): ClusterLayout {
  const region = scenario.aws.region;
  const zones = scenario.aws.availabilityZones ?? ['a', 'b', 'c'].map((l) => `${region}${l}`);
  const subnets = subnetsFor(scenario.aws.vpcCidr, zones);
  const counts = nodeCount ?? scenario.nodes;
  const instances: InstanceLayout[] = [];
  const total = counts.controlPlane + counts.workers;
  const perSubnet = new Array<number>(subnets.length).fill(0);
  const usedIds = new Set<string>();
  const poolSuffix = hex(random, 5);
  for (let index = 0; index < total; index++) {
    const role: NodeRole = index < counts.controlPlane ? 'control-plane' : 'worker';
    const subnet = subnets[index % subnets.length]!;
    const offset = 10 + perSubnet[subnet.index]!++;
    const privateIp = intToIp(ipToInt(subnet.cidr.split('/')[0]!) + offset);
    let instanceId = `i-0${hex(random, 16)}`;
    while (usedIds.has(instanceId)) instanceId = `i-0${hex(random, 16)}`;
    usedIds.add(instanceId);
    const pool = role === 'control-plane' ? 'cp' : 'worker';
    const ordinal = role === 'control-plane' ? index : index - counts.controlPlane;
    instances.push({
      index,
      role,
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
