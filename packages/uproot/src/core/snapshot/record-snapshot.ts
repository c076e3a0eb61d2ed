/**
 * Turns what preflight read (a PreflightSnapshot) and the snapshot's own AWS reads into the `snapshot:`
 * record, and the record into a scenario document the sandbox replays. Pure: the reads happen in the
 * toolkit (toolkit/snapshot.ts) through the adapters preflight uses.
 */
import { parseAllDocuments } from 'yaml';
import { InternalError } from '../../errors/index.js';
import type { ClusterProfile } from '../checks/facts/cluster-profile.js';
import type {
  AwsFacts,
  Ec2InstanceFacts,
  IamFacts,
  KubeSnapshot,
  PreflightSnapshot,
  SecurityGroupFacts,
} from '../model/snapshot.js';
import type { Readable } from '../model/readable.js';
import {
  SNAPSHOT_FORMAT_VERSION,
  clusterSnapshotSchema,
  type ClusterSnapshot,
  type ClusterSnapshotInput,
  type SnapshotAws,
  type SnapshotInstanceInput,
} from './snapshot-schema.js';

export interface SnapshotAwsExtras {
  readonly routeTables: Readable<SnapshotAws['routeTables']>;
  readonly loadBalancers: Readable<SnapshotAws['loadBalancers']>;
  /** Security groups of the load balancers that no node's instance has. */
  readonly loadBalancerSecurityGroups?: Readable<readonly SecurityGroupFacts[]>;
}

export interface RecordSnapshotInput {
  readonly preflight: PreflightSnapshot;
  readonly extras?: SnapshotAwsExtras;
  readonly takenAt: string;
  readonly source: ClusterSnapshot['source'];
  /** `--cluster-id`; else the instances' cluster tag decides. */
  readonly clusterId?: string;
  /**
   * When no instance carries a cluster tag: the Rancher cluster's name. It comes after the tag because RKE under
   * Rancher is named `c-xxxxx` there while its AWS resources are tagged with the cluster's own id.
   */
  readonly fallbackClusterId?: string;
}

const CLUSTER_TAG = 'kubernetes.io/cluster/';

/** The record of a cluster and its account; validated against the schema the sandbox reads it with. */
export function recordSnapshot(input: RecordSnapshotInput): ClusterSnapshot {
  const { kube, aws } = input.preflight;
  const unavailable: Record<string, string> = {};
  const value = <T>(part: string, r: Readable<T> | undefined, fallback: T): T => {
    if (!r) return fallback;
    if (r.state === 'ok') return r.value;
    unavailable[part] = r.reason;
    return fallback;
  };
  const awsFacts = value('aws', aws, undefined);
  const record: ClusterSnapshotInput = {
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    takenAt: input.takenAt,
    source: input.source,
    clusterId: input.clusterId ?? clusterIdOf(awsFacts) ?? input.fallbackClusterId ?? 'snapshot',
    unavailable,
    kubernetes: recordKube(kube, value),
    ...(awsFacts ? { aws: recordAws(awsFacts, input.extras, value) } : {}),
  };
  const parsed = clusterSnapshotSchema.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InternalError(
      `the snapshot uproot read does not fit its own format at ${issue.path.join('.')}: ${issue.message}`,
    );
  }
  return parsed.data;
}

type Value = <T>(part: string, r: Readable<T> | undefined, fallback: T) => T;

function recordKube(kube: KubeSnapshot, value: Value): ClusterSnapshotInput['kubernetes'] {
  const definition = kube.clusterDefinition
    ? value('clusterDefinition', kube.clusterDefinition, undefined)
    : undefined;
  const leaseRbac = value('leaseRbac', kube.leaseRbac, undefined);
  return {
    serverVersion: value('server', kube.server, { gitVersion: '' }).gitVersion,
    nodes: value('nodes', kube.nodes, []).map((n) => ({
      name: n.name,
      labels: { ...n.labels },
      annotations: { ...n.annotations },
      taints: n.taints.map((t) => ({
        key: t.key,
        ...(t.value !== undefined ? { value: t.value } : {}),
        effect: t.effect,
      })),
      ...(n.providerID ? { providerID: n.providerID } : {}),
      kubeletVersion: n.kubeletVersion,
      addresses: [...(n.addresses ?? n.internalIPs.map((address) => ({ type: 'InternalIP', address })))],
      conditions: [...(n.conditions ?? [])],
      unschedulable: n.unschedulable,
    })),
    loadBalancerServices: value('loadBalancerServices', kube.loadBalancerServices, []).map((s) => ({
      namespace: s.namespace,
      name: s.name,
      annotations: { ...s.annotations },
      ...(s.loadBalancerClass ? { loadBalancerClass: s.loadBalancerClass } : {}),
      ports: (s.ports ?? []).map((p) => ({ ...p })),
      hostnames: [...s.ingressHostnames],
    })),
    storageClasses: value('storageClasses', kube.storageClasses, []).map((c) => ({ ...c })),
    persistentVolumes: value('persistentVolumes', kube.persistentVolumes, []).map((v) => ({ ...v })),
    csiDrivers: [...value('csiDrivers', kube.csiDrivers, [])],
    leases: plain(value('leases', kube.leases, [])),
    componentPods: plain(value('componentPods', kube.componentPods, [])),
    daemonSets: plain(value('daemonSets', kube.daemonSets, [])),
    helmCharts: plain(value('helmCharts', kube.helmCharts, [])),
    ...(leaseRbac ? { leaseRbac: plain(leaseRbac) } : {}),
    ...(definition ? { clusterDefinition: plain(withoutSecrets(definition)) } : {}),
  };
}

function recordAws(
  facts: AwsFacts,
  extras: SnapshotAwsExtras | undefined,
  value: Value,
): ClusterSnapshotInput['aws'] {
  const instances = value('aws.instances', facts.instances, []);
  const vpcs = value('aws.vpcDhcp', facts.vpcDhcp, []);
  const subnets = value('aws.subnets', facts.subnets, []);
  const iam = value<IamFacts>('aws.iam', facts.iam, { profiles: [], roles: {} });
  return {
    region: facts.region,
    accountId: facts.accountId,
    instances: instances.map(instanceRecord),
    vpcs: vpcs
      .filter((v) => v.cidrBlock)
      .map((v) => ({
        vpcId: v.vpcId,
        cidrBlock: v.cidrBlock!,
        dhcpOptionsId: v.dhcpOptionsId,
        ...(v.domainName ? { domainName: v.domainName } : {}),
        tags: { ...(v.tags ?? {}) },
      })),
    subnets: subnets
      .filter((s) => s.cidrBlock)
      .map((s) => ({
        subnetId: s.subnetId,
        vpcId: s.vpcId,
        cidrBlock: s.cidrBlock!,
        availabilityZone: s.availabilityZone,
        tags: { ...s.tags },
      })),
    routeTables: value('aws.routeTables', extras?.routeTables, []),
    securityGroups: [
      ...value('aws.securityGroups', facts.securityGroups, []),
      ...value('aws.loadBalancerSecurityGroups', extras?.loadBalancerSecurityGroups, []),
    ].map((g) => ({ ...g, tags: { ...g.tags } })),
    instanceProfiles: iam.profiles.map((p) => ({
      name: p.name,
      roles: p.roles.state === 'ok' ? [...p.roles.value] : [],
    })),
    roles: Object.entries(iam.roles).flatMap(([name, r]) => {
      if (r.state !== 'ok') {
        value(`aws.iam.roles.${name}`, r, undefined);
        return [];
      }
      return [
        {
          name,
          policies: r.value.policies.map((p) => ({
            name: p.name,
            kind: p.kind,
            ...(p.arn ? { arn: p.arn } : {}),
            document: plain(p.document) as Record<string, unknown>,
          })),
        },
      ];
    }),
    loadBalancers: value('aws.loadBalancers', extras?.loadBalancers, []),
  };
}

function instanceRecord(i: Ec2InstanceFacts): SnapshotInstanceInput {
  const profile = i.iamInstanceProfileArn?.slice(i.iamInstanceProfileArn.lastIndexOf('/') + 1);
  return {
    instanceId: i.instanceId,
    ...(i.instanceType ? { instanceType: i.instanceType } : {}),
    privateDnsName: i.privateDnsName,
    privateIpAddress: i.privateIpAddress ?? '0.0.0.0',
    state: i.state,
    availabilityZone: i.availabilityZone,
    ...(i.vpcId ? { vpcId: i.vpcId } : {}),
    subnetId: i.subnetId ?? '',
    securityGroupIds: [...i.securityGroupIds],
    tags: { ...i.tags },
    ...(profile ? { iamInstanceProfile: profile } : {}),
    ...(i.metadataOptions
      ? {
          metadataOptions: {
            httpTokens: i.metadataOptions.httpTokens === 'required' ? 'required' : 'optional',
            httpPutResponseHopLimit: i.metadataOptions.httpPutResponseHopLimit,
            httpEndpoint: i.metadataOptions.httpEndpoint === 'disabled' ? 'disabled' : 'enabled',
          },
        }
      : {}),
  };
}

/** The cluster id most instances are tagged with (`kubernetes.io/cluster/<id>`). */
function clusterIdOf(aws: AwsFacts | undefined): string | undefined {
  if (!aws || aws.instances.state !== 'ok') return undefined;
  const counts = new Map<string, number>();
  for (const i of aws.instances.value)
    for (const key of Object.keys(i.tags))
      if (key.startsWith(CLUSTER_TAG))
        counts.set(key.slice(CLUSTER_TAG.length), (counts.get(key.slice(CLUSTER_TAG.length)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/**
 * Rancher's additionalManifest may carry Secrets (registry credentials, cloud keys): they are dropped whole,
 * so the record holds no Secret data even when the definition does.
 */
function withoutSecrets<T extends { distro: string }>(definition: T): T {
  const manifest = (definition as { additionalManifest?: string }).additionalManifest;
  if (!manifest) return definition;
  const kept = parseAllDocuments(manifest)
    .filter((doc) => (doc.toJS() as { kind?: unknown } | null)?.kind !== 'Secret')
    .map((doc) => doc.toString())
    .join('---\n');
  return { ...definition, additionalManifest: kept };
}

/** A JSON copy: drops undefined and functions so the YAML holds data only. */
function plain<T>(v: T): T extends readonly unknown[] ? Record<string, unknown>[] : Record<string, unknown> {
  return JSON.parse(JSON.stringify(v)) as never;
}

/** The scenario distribution a profile replays as; undefined for what the twin cannot model (k3s, unknown). */
export function replayDistribution(
  profile: Pick<ClusterProfile, 'distro'>,
): 'rke2' | 'rke' | 'kubeadm' | undefined {
  return profile.distro === 'rke2' || profile.distro === 'rke' || profile.distro === 'kubeadm'
    ? profile.distro
    : undefined;
}

/** A name a scenario accepts (an RFC 1123 label) for the cluster. */
export function scenarioName(clusterId: string): string {
  const base =
    clusterId
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'cluster';
  return `${base.slice(0, 50)}-snapshot`;
}

export interface SnapshotScenario {
  readonly name: string;
  readonly description: string;
  readonly distribution: 'rke2' | 'rke' | 'kubeadm';
  readonly kubernetesVersion: string;
  readonly clusterName: string;
  readonly cloudProvider: 'in-tree' | 'external';
  readonly rke?: { readonly managedBy: 'rancher' | 'rke-cli' };
  readonly snapshot: ClusterSnapshot;
}

/**
 * The scenario file `uproot sandbox up --scenario FILE` replays: the generator fields the twin needs to run the
 * distribution's machinery (distribution, release, cluster name, cloud provider), and the record that pins
 * names, ids, tags, IAM and load balancers. The sandbox derives the rest (node counts, naming, workloads).
 */
export function snapshotScenario(
  snapshot: ClusterSnapshot,
  profile: Pick<ClusterProfile, 'distro' | 'version' | 'definition' | 'kcm'>,
): SnapshotScenario | { readonly refused: string } {
  const distribution = replayDistribution(profile);
  if (!distribution) {
    return {
      refused: `the sandbox replays RKE2, RKE and kubeadm clusters; this one looks like ${profile.distro}`,
    };
  }
  const definitionVersion =
    profile.definition && 'kubernetesVersion' in profile.definition
      ? profile.definition.kubernetesVersion
      : undefined;
  const version = definitionVersion ?? profile.version?.raw ?? snapshot.kubernetes.serverVersion;
  const kcm = profile.kcm.state === 'ok' ? profile.kcm.value : [];
  const inTree = kcm.length > 0 && kcm.every((v) => v.flags.get('cloud-provider') === 'aws');
  const clusterName = scenarioName(snapshot.clusterId).slice(0, -'-snapshot'.length);
  const managedBy = profile.definition?.source.includes('cattle.io') ? 'rancher' : 'rke-cli';
  return {
    name: scenarioName(snapshot.clusterId),
    description: `uproot snapshot of ${snapshot.source.context ?? snapshot.clusterId} taken ${snapshot.takenAt}`,
    distribution,
    kubernetesVersion: version,
    clusterName,
    cloudProvider: inTree ? 'in-tree' : 'external',
    ...(distribution === 'rke' ? { rke: { managedBy } } : {}),
    snapshot,
  };
}

/** What `--summary` prints: counts per part and the file's size. */
export function summarizeSnapshot(snapshot: ClusterSnapshot, bytes: number): string[] {
  const k = snapshot.kubernetes;
  const a = snapshot.aws;
  const lines = [
    `snapshot of ${snapshot.source.context ?? '(current context)'} (cluster id ${snapshot.clusterId}), taken ${snapshot.takenAt}`,
    `  kubernetes: ${k.nodes.length} nodes, ${k.loadBalancerServices.length} LoadBalancer Services, ${k.storageClasses.length} StorageClasses, ${k.persistentVolumes.length} EBS PersistentVolumes, ${k.csiDrivers.length} CSI drivers, ${k.leases.length} leases, ${k.daemonSets.length} DaemonSets, ${k.helmCharts.length} HelmCharts${k.clusterDefinition ? `, cluster definition (${String(k.clusterDefinition.source)})` : ''}`,
  ];
  if (a) {
    lines.push(
      `  aws ${a.region}: ${a.instances.length} instances, ${a.vpcs.length} VPCs, ${a.subnets.length} subnets, ${a.routeTables.length} route tables, ${a.securityGroups.length} security groups, ${a.instanceProfiles.length} instance profiles, ${a.roles.length} IAM roles, ${a.loadBalancers.length} load balancers`,
    );
  } else lines.push('  aws: not read');
  for (const [part, reason] of Object.entries(snapshot.unavailable))
    lines.push(`  not captured: ${part}: ${reason}`);
  lines.push(`  size: ${bytes} bytes`);
  return lines;
}
