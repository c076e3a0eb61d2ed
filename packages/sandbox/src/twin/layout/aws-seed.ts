import type { Random } from 'uproot';
import { CONTROL_PLANE_ACTIONS, CONTROL_PLANE_RECOMMENDED_ACTIONS, NODE_ACTIONS } from 'uproot/core';
import type { Scenario } from '../../scenarios/index.js';
import { privateDnsDomain, type ClusterLayout, type InstanceLayout } from './cluster-layout.js';

/**
 * The AWS account of a twin, as a seed for the AWS emulator: one VPC with a subnet per zone (tagged for
 * load balancers and with the cluster tag), the VPC's DHCP options (the domain the naming mode implies),
 * the cluster's security group, seed 004's two instance roles
 * (minus the scenario's IAM gaps), and one instance per node. Load balancers that existed before the
 * migration are added later (`classicLoadBalancerSeed`), once their Services have uids.
 */

export interface SeedIds {
  readonly vpcId: string;
  readonly subnetIds: readonly string[];
  readonly routeTableId: string;
  readonly clusterSecurityGroupId: string;
  readonly secondSecurityGroupId: string;
}

export interface InstanceRoles {
  readonly controlPlane: { readonly role: string; readonly profile: string };
  readonly worker: { readonly role: string; readonly profile: string };
}

export type SeedObject = Record<string, unknown>;

function hexId(random: Random, prefix: string): string {
  let out = '';
  for (let i = 0; i < 17; i++) out += Math.floor(random() * 16).toString(16);
  return `${prefix}-${out}`;
}

export function planSeedIds(layout: ClusterLayout, random: Random): SeedIds {
  return {
    vpcId: hexId(random, 'vpc'),
    subnetIds: layout.subnets.map(() => hexId(random, 'subnet')),
    routeTableId: hexId(random, 'rtb'),
    clusterSecurityGroupId: hexId(random, 'sg'),
    secondSecurityGroupId: hexId(random, 'sg'),
  };
}

export function instanceRoles(scenario: Scenario): InstanceRoles {
  const base = scenario.clusterName;
  return {
    controlPlane: { role: `${base}-control-plane`, profile: `${base}-control-plane` },
    worker: { role: `${base}-worker`, profile: `${base}-worker` },
  };
}

export function clusterTagKey(clusterId: string): string {
  return `kubernetes.io/cluster/${clusterId}`;
}

/**
 * Read-only actions the simulated cloud controllers call that seed 004's control-plane policy does not list
 * (the service controller reads load balancer tags). Granted on top so a healthy scenario is healthy; a
 * scenario's `iam.controlPlaneMissingActions` can still take them away.
 */
export const TWIN_EXTRA_CONTROL_PLANE_ACTIONS: readonly string[] = ['elasticloadbalancing:DescribeTags'];

/**
 * The domain-name of the VPC's DHCP options: the region's private DNS domain, the scenario's custom domain,
 * or none at all (`short-hostname`: the OS then knows only `ip-10-0-1-23`).
 */
export function dhcpDomainName(scenario: Scenario): string | undefined {
  switch (scenario.naming.mode) {
    case 'custom-dhcp-domain':
      return scenario.naming.dhcpDomain;
    case 'short-hostname':
      return undefined;
    case 'ip-dns':
    case 'resource-name':
      return privateDnsDomain(scenario.aws.region);
  }
}

function policyDocument(actions: readonly string[]): SeedObject {
  return { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: [...actions], Resource: ['*'] }] };
}

export function buildAwsSeed(scenario: Scenario, layout: ClusterLayout, ids: SeedIds): SeedObject {
  const tag = clusterTagKey(layout.clusterId);
  const tagValue = scenario.aws.clusterTagValue;
  const missing = new Set(scenario.defects.clusterTagMissingOn);
  const extra = scenario.defects.extraInstanceClusterTag;
  const clusterTags = (kind: 'instances' | 'subnets' | 'security-groups'): Record<string, string> => ({
    ...(missing.has(kind) ? {} : { [tag]: tagValue }),
    ...(kind === 'instances' && extra ? { [clusterTagKey(extra)]: 'owned' } : {}),
  });
  const roles = instanceRoles(scenario);
  const cpMissing = new Set(scenario.iam.controlPlaneMissingActions);
  const workerMissing = new Set(scenario.iam.workerMissingActions);
  const cpActions = [
    ...CONTROL_PLANE_ACTIONS,
    ...CONTROL_PLANE_RECOMMENDED_ACTIONS,
    ...TWIN_EXTRA_CONTROL_PLANE_ACTIONS,
  ].filter((a) => !cpMissing.has(a));
  const workerActions = NODE_ACTIONS.filter((a) => !workerMissing.has(a));
  const securityGroups: SeedObject[] = [
    {
      id: ids.clusterSecurityGroupId,
      name: `${layout.clusterId}-nodes`,
      description: `Kubernetes nodes of ${layout.clusterId}`,
      vpcId: ids.vpcId,
      ingress: [{ protocol: '-1', cidrs: [layout.vpcCidr] }],
      tags: { Name: `${layout.clusterId}-nodes`, ...clusterTags('security-groups') },
    },
  ];
  const nodeGroups = [ids.clusterSecurityGroupId];
  if (scenario.defects.secondTaggedSecurityGroup) {
    securityGroups.push({
      id: ids.secondSecurityGroupId,
      name: `${layout.clusterId}-extra`,
      description: 'A second group someone tagged for the cluster',
      vpcId: ids.vpcId,
      tags: { Name: `${layout.clusterId}-extra`, [tag]: tagValue },
    });
    nodeGroups.push(ids.secondSecurityGroupId);
  }
  // Derived from the VPC's id rather than drawn from `random`, so adding it moved no other id.
  const dhcpOptionsId = `dopt-${ids.vpcId.slice('vpc-'.length)}`;
  const domainName = dhcpDomainName(scenario);
  return {
    region: layout.region,
    enforceIam: scenario.aws.enforceIam,
    dhcpOptions: [
      {
        id: dhcpOptionsId,
        ...(domainName ? { domainName } : {}),
        tags: { Name: `${layout.clusterId}-dhcp` },
      },
    ],
    vpcs: [
      {
        id: ids.vpcId,
        cidrBlock: layout.vpcCidr,
        dhcpOptionsId,
        tags: { Name: `${layout.clusterId}-vpc` },
      },
    ],
    subnets: layout.subnets.map((s, i) => ({
      id: ids.subnetIds[i],
      vpcId: ids.vpcId,
      cidrBlock: s.cidr,
      availabilityZone: s.availabilityZone,
      tags: {
        Name: `${layout.clusterId}-${s.availabilityZone}`,
        'kubernetes.io/role/elb': '1',
        ...clusterTags('subnets'),
      },
    })),
    routeTables: [
      {
        id: ids.routeTableId,
        vpcId: ids.vpcId,
        main: true,
        subnetIds: [...ids.subnetIds],
        tags: { Name: `${layout.clusterId}-main`, ...clusterTags('subnets') },
      },
    ],
    securityGroups,
    managedPolicies: [
      { name: `${roles.controlPlane.role}-policy`, document: policyDocument(cpActions) },
      { name: `${roles.worker.role}-policy`, document: policyDocument(workerActions) },
    ],
    roles: [
      { name: roles.controlPlane.role, attachedPolicies: [`${roles.controlPlane.role}-policy`] },
      { name: roles.worker.role, attachedPolicies: [`${roles.worker.role}-policy`] },
    ],
    instanceProfiles: [
      { name: roles.controlPlane.profile, roles: [roles.controlPlane.role] },
      { name: roles.worker.profile, roles: [roles.worker.role] },
    ],
    instances: layout.instances.map((i) => ({
      ...instanceSeed(i, ids, nodeGroups, roles, clusterTags('instances')),
      metadataOptions: { ...scenario.aws.instanceMetadata },
    })),
  };
}

function instanceSeed(
  i: InstanceLayout,
  ids: SeedIds,
  securityGroupIds: readonly string[],
  roles: InstanceRoles,
  clusterTags: Record<string, string>,
): SeedObject {
  return {
    id: i.instanceId,
    privateIpAddress: i.privateIp,
    privateDnsName: i.privateDnsName,
    subnetId: ids.subnetIds[i.subnetIndex],
    availabilityZone: i.availabilityZone,
    instanceType: i.instanceType,
    securityGroupIds: [...securityGroupIds],
    iamInstanceProfile: i.role === 'control-plane' ? roles.controlPlane.profile : roles.worker.profile,
    hostname: i.imdsHostname,
    localHostname: i.imdsLocalHostname,
    tags: { Name: i.machineName, ...clusterTags },
  };
}

/** The classic ELB the in-tree provider made for a LoadBalancer Service (cloud-provider-aws naming). */
export function loadBalancerNameFor(serviceUid: string): string {
  return `a${serviceUid.replace(/-/g, '')}`.slice(0, 32);
}

export function classicLoadBalancerSeed(options: {
  readonly name: string;
  readonly namespace: string;
  readonly serviceName: string;
  readonly clusterId: string;
  readonly ports: readonly { port: number; nodePort: number }[];
  readonly subnetIds: readonly string[];
  readonly securityGroupId: string;
  readonly instanceIds: readonly string[];
}): SeedObject {
  return {
    name: options.name,
    scheme: 'internet-facing',
    listeners: options.ports.map((p) => ({
      protocol: 'TCP',
      loadBalancerPort: p.port,
      instanceProtocol: 'TCP',
      instancePort: p.nodePort,
    })),
    subnetIds: [...options.subnetIds],
    securityGroupIds: [options.securityGroupId],
    instanceIds: [...options.instanceIds],
    tags: {
      [clusterTagKey(options.clusterId)]: 'owned',
      'kubernetes.io/service-name': `${options.namespace}/${options.serviceName}`,
    },
  };
}

/** The security group the in-tree provider creates for each ELB (`k8s-elb-<lb name>`). */
export function elbSecurityGroupSeed(options: {
  readonly id: string;
  readonly lbName: string;
  readonly namespace: string;
  readonly serviceName: string;
  readonly vpcId: string;
  readonly clusterId: string;
  readonly ports: readonly number[];
}): SeedObject {
  return {
    id: options.id,
    name: `k8s-elb-${options.lbName}`,
    description: `Security group for Kubernetes ELB ${options.lbName} (${options.namespace}/${options.serviceName})`,
    vpcId: options.vpcId,
    ingress: options.ports.map((p) => ({ protocol: 'tcp', fromPort: p, toPort: p, cidrs: ['0.0.0.0/0'] })),
    tags: {
      [clusterTagKey(options.clusterId)]: 'owned',
      'kubernetes.io/service-name': `${options.namespace}/${options.serviceName}`,
    },
  };
}
