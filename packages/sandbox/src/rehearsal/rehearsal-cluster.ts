import type { Clock, Random } from 'uproot';
import type { ManagerComponent } from 'uproot/core';
import {
  startKubeApiServer,
  type Identity,
  type KubeApiServer,
  type KubeObject,
} from '../apiserver/index.js';
import {
  emptyAccountSeed,
  EMPTY_ACCOUNT_IDS,
  startAwsEmulator,
  type AwsEmulator,
  type AwsSeed,
} from '../aws/index.js';
import type { AwsEndpoint } from '../cloud-controllers/aws-api.js';
import { CLUSTER_TAG_PREFIX, SERVICE_NAME_TAG } from '../cloud-controllers/cluster-tags.js';
import type { KubeEndpoint } from '../cloud-controllers/kube-api.js';
import { defaultLoadBalancerName } from '../cloud-controllers/load-balancer-spec.js';
import { imdsCredentials } from '../managers/imds-credentials.js';
import { Ec2MetadataClient } from '../cloud-controllers/ec2-metadata.js';
import {
  ccmRbac,
  CONTROLLER_SERVICE_ACCOUNT_NAMES,
  controllerServiceAccountRbac,
  controlPlanePolicy,
  LEADER_LOCKING_ROLES,
  loadBalancerService,
  migrationLeaseRolePatch,
  nodeObject,
  type NodeSpec,
} from './cluster-objects.js';

export interface RehearsalClusterOptions {
  readonly clock: Clock;
  readonly random: Random;
  /** The `kubernetes.io/cluster/<id>` the AWS resources carry. Default `rehearsal`. */
  readonly clusterId?: string;
  readonly controlPlanes?: number;
  readonly workers?: number;
  /** LoadBalancer Services whose classic ELBs the in-tree provider already made. Default 2. */
  readonly loadBalancers?: number;
  /** The kubelets' version. Default `v1.26.15`. */
  readonly kubeletVersion?: string;
  /** Apply seed 003's RBAC patch for the migration lease. Default true. */
  readonly migrationLeaseRbac?: boolean;
  /** Check AWS calls against the node roles' policies. Default false. */
  readonly enforceIam?: boolean;
  /** Serve the API over https (client-node verifies the generated CA). Default false: faster for rehearsals. */
  readonly tls?: boolean;
  /**
   * Cloud routes: nodes carry podCIDRs from `clusterCidr` and the cluster's route table routes them to their
   * instances (managers then need --allocate-node-cidrs --cluster-cidr --configure-cloud-routes). Default false.
   */
  readonly routes?: boolean;
}

/** The pod network when `routes` is on. */
export const REHEARSAL_CLUSTER_CIDR = '10.42.0.0/16';

export interface ClusterNode extends NodeSpec {
  readonly roleName: string;
}

export interface ClusterService {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly loadBalancerName: string;
  readonly hostname: string;
}

/** A running sandbox cluster that has been on the in-tree AWS provider: API server, AWS emulator, identities. */
export interface RehearsalCluster {
  readonly api: KubeApiServer;
  readonly aws: AwsEmulator;
  readonly clusterId: string;
  readonly nodes: readonly ClusterNode[];
  readonly services: readonly ClusterService[];
  /**
   * Where and as whom a manager of `component` talks to the API server, with the per-controller service
   * account tokens --use-service-account-credentials uses.
   */
  kubeFor(
    component: ManagerComponent,
  ): KubeEndpoint & { tokenFor(serviceAccount: string): string | undefined };
  /** The AWS endpoint with the node's instance-role credentials from IMDS. */
  awsFor(node: ClusterNode): AwsEndpoint;
  close(): Promise<void>;
}

export const SANDBOX_IDENTITIES = {
  admin: { name: 'admin', token: 'rehearsal-admin', user: 'admin', groups: ['system:masters'] },
  kcm: { name: 'kube-controller-manager', token: 'rehearsal-kcm', user: 'system:kube-controller-manager' },
  ccm: {
    name: 'cloud-controller-manager',
    token: 'rehearsal-ccm',
    user: 'system:serviceaccount:kube-system:cloud-controller-manager',
  },
} as const satisfies Record<string, Identity>;

/** Tokens of the per-controller service accounts (what the SA-token controller would mint). */
const controllerIdentities: Identity[] = CONTROLLER_SERVICE_ACCOUNT_NAMES.map((sa) => ({
  name: sa,
  token: `rehearsal-sa-${sa}`,
  user: `system:serviceaccount:kube-system:${sa}`,
}));

const ZONES = ['a', 'b', 'c'];
const hex17 = (n: number): string => n.toString(16).padStart(17, '0');

/**
 * Starts a cluster that has been running the in-tree AWS provider: nodes named by their private DNS names
 * with providerIDs and topology labels, LoadBalancer Services with finalizers and the classic ELBs (and their
 * `k8s-elb-*` security groups) the in-tree service controller made, node roles with seed 004's policy, the
 * CCM chart's RBAC, and (by default) seed 003's patch on the leader-locking roles.
 */
export async function startRehearsalCluster(options: RehearsalClusterOptions): Promise<RehearsalCluster> {
  const clusterId = options.clusterId ?? 'rehearsal';
  const region = 'us-east-1';
  const api = await startKubeApiServer({
    identities: [...Object.values(SANDBOX_IDENTITIES), ...controllerIdentities],
    clock: options.clock,
    random: options.random,
    tls: options.tls ?? false,
    preloadRancherCrds: false,
  });
  try {
    const nodes = nodeSpecs(options, region);
    const store = api.store;
    for (const node of nodes) store.create('nodes', nodeObject(node));
    for (const o of [...ccmRbac(), ...controllerServiceAccountRbac()]) {
      store.create(o.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings', o);
    }
    if (options.migrationLeaseRbac ?? true) {
      for (const role of LEADER_LOCKING_ROLES)
        store.patch('roles', 'kube-system', role, 'merge', migrationLeaseRolePatch());
    }
    const services = [...Array(options.loadBalancers ?? 2).keys()].map((i) => {
      const [namespace, name] = i === 0 ? ['default', 'web'] : ['shop', `checkout-${i}`];
      if (namespace !== 'default' && !store.get('namespaces', undefined, namespace)) {
        store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      }
      return store.create('services', loadBalancerService(namespace!, name!, 80 + i));
    });

    const aws = await startAwsEmulator({
      seed: awsSeed({ clusterId, region, nodes, services, enforceIam: options.enforceIam ?? false }),
      clock: options.clock,
      random: options.random,
    });
    const clusterServices: ClusterService[] = services.map((svc) => {
      const meta = svc.metadata!;
      const lbName = defaultLoadBalancerName(String(meta.uid));
      const nodePort = Number((svc.spec as { ports: { nodePort: number }[] }).ports[0]!.nodePort);
      aws.state.elb.configureHealthCheck(lbName, {
        target: `TCP:${nodePort}`,
        interval: 10,
        timeout: 5,
        unhealthyThreshold: 6,
        healthyThreshold: 2,
      });
      const hostname = aws.state.elb.require(lbName).dnsName;
      store.patch(
        'services',
        String(meta.namespace),
        String(meta.name),
        'merge',
        { status: { loadBalancer: { ingress: [{ hostname }] } } },
        {
          subresource: 'status',
        },
      );
      return {
        namespace: String(meta.namespace),
        name: String(meta.name),
        uid: String(meta.uid),
        loadBalancerName: lbName,
        hostname,
      };
    });

    const kubeFor = (component: ManagerComponent) => ({
      server: api.url,
      token:
        component === 'kube-controller-manager' ? SANDBOX_IDENTITIES.kcm.token : SANDBOX_IDENTITIES.ccm.token,
      ...(api.certificateAuthority ? { certificateAuthority: api.certificateAuthority } : {}),
      tokenFor: (serviceAccount: string) =>
        controllerIdentities.find((i) => i.name === serviceAccount)?.token,
    });
    return {
      api,
      aws,
      clusterId,
      nodes,
      services: clusterServices,
      kubeFor,
      awsFor: (node) => ({
        endpoint: aws.url,
        region,
        instanceId: node.instanceId,
        credentials: imdsCredentials(
          async () =>
            new Ec2MetadataClient({
              endpoint: await aws.openInstanceImds(node.instanceId),
              clock: options.clock,
              network: aws.imdsNetwork,
            }),
          () => options.clock.now(),
        ),
      }),
      close: async () => {
        await Promise.allSettled([api.close(), aws.close()]);
      },
    };
  } catch (error) {
    await api.close();
    throw error;
  }
}

function nodeSpecs(options: RehearsalClusterOptions, region: string): ClusterNode[] {
  const out: ClusterNode[] = [];
  const add = (controlPlane: boolean, i: number): void => {
    const az = i % 3;
    const host = (controlPlane ? 10 : 100) + i;
    const ip = `10.0.${az * 16}.${host}`;
    out.push({
      name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`,
      instanceId: `i-${hex17(out.length + 1)}`,
      zone: `${region}${ZONES[az]}`,
      privateIp: ip,
      instanceType: controlPlane ? 'm5.xlarge' : 'm5.large',
      controlPlane,
      kubeletVersion: options.kubeletVersion ?? 'v1.26.15',
      initialized: true,
      podCidr: options.routes ? `10.42.${out.length}.0/24` : undefined,
      roleName: controlPlane ? 'uproot-control-plane' : 'uproot-worker',
    });
  };
  for (let i = 0; i < (options.controlPlanes ?? 3); i++) add(true, i);
  for (let i = 0; i < (options.workers ?? 3); i++) add(false, i);
  return out;
}

function awsSeed(args: {
  clusterId: string;
  region: string;
  nodes: readonly ClusterNode[];
  services: readonly KubeObject[];
  enforceIam: boolean;
}): AwsSeed {
  const base = emptyAccountSeed({
    clusterName: args.clusterId,
    region: args.region,
    enforceIam: args.enforceIam,
  });
  const cluster = { [`${CLUSTER_TAG_PREFIX}${args.clusterId}`]: 'owned' };
  const lbGroups = args.services.map((svc, i) => {
    const meta = svc.metadata!;
    const name = defaultLoadBalancerName(String(meta.uid));
    const ports = (svc.spec as { ports: { port: number; nodePort: number }[] }).ports;
    return {
      id: `sg-${hex17(0xe1b00 + i)}`,
      name: `k8s-elb-${name}`,
      lbName: name,
      serviceKey: `${String(meta.namespace)}/${String(meta.name)}`,
      ports,
    };
  });
  const nodeGroup = base.securityGroups![0]!;
  const mainTable = base.routeTables![0]!;
  return {
    ...base,
    routeTables: [
      {
        ...mainTable,
        routes: [
          ...(mainTable.routes ?? []),
          ...args.nodes
            .filter((n) => n.podCidr)
            .map((n) => ({ destinationCidrBlock: n.podCidr!, instanceId: n.instanceId })),
        ],
      },
    ],
    securityGroups: [
      {
        ...nodeGroup,
        ingress: [
          ...(nodeGroup.ingress ?? []),
          ...lbGroups.map((g) => ({ protocol: '-1', sourceGroupIds: [g.id] })),
        ],
      },
      ...lbGroups.map((g) => ({
        id: g.id,
        name: g.name,
        description: `Security group for Kubernetes ELB ${g.lbName} (${g.serviceKey})`,
        vpcId: EMPTY_ACCOUNT_IDS.vpc,
        ingress: [
          ...g.ports.map((p) => ({
            protocol: 'tcp',
            fromPort: p.port,
            toPort: p.port,
            cidrs: ['0.0.0.0/0'],
          })),
          { protocol: 'icmp', fromPort: 3, toPort: 4, cidrs: ['0.0.0.0/0'] },
        ],
        tags: cluster,
      })),
    ],
    roles: [
      { name: 'uproot-control-plane', inlinePolicies: { 'cloud-provider': controlPlanePolicy() } },
      {
        name: 'uproot-worker',
        inlinePolicies: {
          node: {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Action: ['ec2:DescribeInstances', 'ec2:DescribeRegions'], Resource: '*' },
            ],
          },
        },
      },
    ],
    instanceProfiles: [
      { name: 'uproot-control-plane', roles: ['uproot-control-plane'] },
      { name: 'uproot-worker', roles: ['uproot-worker'] },
    ],
    instances: args.nodes.map((n) => ({
      id: n.instanceId,
      privateIpAddress: n.privateIp,
      privateDnsName: n.name,
      subnetId: EMPTY_ACCOUNT_IDS.subnets[ZONES.indexOf(n.zone.slice(-1))]!,
      availabilityZone: n.zone,
      instanceType: n.instanceType,
      iamInstanceProfile: n.roleName,
      securityGroupIds: [EMPTY_ACCOUNT_IDS.securityGroup],
      tags: { Name: n.name, ...cluster },
    })),
    classicLoadBalancers: lbGroups.map((g) => ({
      name: g.lbName,
      listeners: g.ports.map((p) => ({
        protocol: 'TCP',
        loadBalancerPort: p.port,
        instanceProtocol: 'TCP',
        instancePort: p.nodePort,
      })),
      subnetIds: [...EMPTY_ACCOUNT_IDS.subnets],
      securityGroupIds: [g.id],
      instanceIds: args.nodes.map((n) => n.instanceId),
      tags: { [SERVICE_NAME_TAG]: g.serviceKey, ...cluster },
    })),
  };
}
