import type { ClusterSnapshot, SnapshotInstance, SnapshotNode } from 'uproot/core';
import type { NamingMode, Scenario } from './scenario-schema.js';

/**
 * A scenario written by `uproot snapshot` (issue 27) carries the record of a live cluster under `snapshot:`.
 * The generator fields the twin's machinery runs on (node pools, naming, the account's region and metadata
 * options, the migration-lease grant, workloads) are derived from that record here, so the file cannot say
 * two things at once; the record itself pins names, ids, tags, IAM and load balancers (twin/layout).
 */

/** A recorded Node that has an EC2 instance (a machine the twin runs), or none (a stray Node object). */
export interface RecordedMachine {
  readonly node: SnapshotNode;
  readonly instance: SnapshotInstance | undefined;
}

/**
 * RKE2 and kubeadm label a control-plane Node `control-plane` (and `master` before 1.24); RKE labels it
 * `controlplane` (rancher/rke services/services.go ControlRoleLabel, written by cluster.go
 * setNodeAnnotationsLabelsTaints).
 */
const CONTROL_PLANE_LABELS = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
  'node-role.kubernetes.io/controlplane',
];
const ETCD_LABEL = 'node-role.kubernetes.io/etcd';

export function isControlPlane(node: SnapshotNode): boolean {
  return CONTROL_PLANE_LABELS.some((l) => l in node.labels);
}

export function isEtcdOnly(node: SnapshotNode): boolean {
  return ETCD_LABEL in node.labels && !isControlPlane(node);
}

/** Each recorded Node with its instance: by the providerID's instance id, else by EC2 private DNS name. */
export function recordedMachines(snapshot: ClusterSnapshot): RecordedMachine[] {
  const instances = snapshot.aws?.instances ?? [];
  const byId = new Map(instances.map((i) => [i.instanceId, i]));
  const byDns = new Map(instances.map((i) => [i.privateDnsName, i]));
  return snapshot.kubernetes.nodes.map((node) => {
    const id = /\/(i-[0-9a-f]+)$/.exec(node.providerID ?? '')?.[1];
    const instance = (id ? byId.get(id) : undefined) ?? byDns.get(node.name) ?? byId.get(node.name.split('.')[0]!);
    return { node, instance };
  });
}

/** EC2's private DNS domain (the same rule as twin/layout's privateDnsDomain). */
function ec2Domain(region: string): string {
  return region === 'us-east-1' ? 'ec2.internal' : `${region}.compute.internal`;
}

function namingOf(snapshot: ClusterSnapshot, machines: readonly RecordedMachine[]): Scenario['naming'] {
  const region = snapshot.aws?.region ?? 'us-east-1';
  const vpc = snapshot.aws?.vpcs[0];
  const domain = vpc?.domainName?.split(' ')[0];
  let mode: NamingMode = 'ip-dns';
  if (machines.some((m) => m.instance && m.node.name.startsWith(m.instance.instanceId))) mode = 'resource-name';
  else if (vpc && !domain) mode = 'short-hostname';
  else if (domain && domain !== ec2Domain(region)) mode = 'custom-dhcp-domain';
  return { mode, dhcpDomain: domain && mode === 'custom-dhcp-domain' ? domain : 'corp.example.com', rkeHostnameOverride: false };
}

/**
 * `granted` when the recorded SubjectAccessReviews let the kube-controller-manager at the migration lease
 * (what `rbac.migrationLease` models); the CCM's service account does not exist before the migration, so its
 * reviews say nothing about the grant.
 */
function leaseGranted(snapshot: ClusterSnapshot): boolean {
  const reviews = (snapshot.kubernetes.leaseRbac?.reviews ?? []) as {
    identity?: { user?: unknown };
    allowed?: unknown;
  }[];
  const kcm = reviews.filter((r) => r.identity?.user === 'system:kube-controller-manager');
  return kcm.every((r) => r.allowed === true);
}

function workloadsOf(snapshot: ClusterSnapshot): Scenario['workloads'] {
  const k = snapshot.kubernetes;
  const daemonSets = k.daemonSets as { name?: unknown }[];
  return {
    loadBalancerServices: k.loadBalancerServices.map((s) => {
      const first = s.ports[0];
      return {
        name: s.name,
        namespace: s.namespace,
        port: first?.port ?? 80,
        targetPort: typeof first?.targetPort === 'number' ? first.targetPort : (first?.port ?? 8080),
        ...(first?.nodePort ? { nodePort: first.nodePort } : {}),
        annotations: { ...s.annotations },
      };
    }),
    persistentVolumes: k.persistentVolumes.map((v) => ({
      name: v.name,
      sizeGi: 10,
      source: v.plugin,
      storageClassName: v.storageClassName ?? 'gp2',
    })),
    storageClasses: k.storageClasses.map((c) => ({ ...c })),
    daemonSets: [],
    ebsCsiDriver: daemonSets.some((d) => d.name === 'ebs-csi-node'),
    csiDrivers: [...k.csiDrivers],
  };
}

/** The scenario with its generator fields derived from `snapshot` (a scenario without one is returned as is). */
export function withSnapshotFields(scenario: Scenario): Scenario {
  const snapshot = scenario.snapshot;
  if (!snapshot) return scenario;
  const machines = recordedMachines(snapshot).filter((m) => m.instance);
  const controlPlane = machines.filter((m) => isControlPlane(m.node)).length;
  const etcd = machines.filter((m) => isEtcdOnly(m.node)).length;
  const first = machines[0]?.instance;
  const aws = snapshot.aws;
  const zones = [...new Set((aws?.subnets ?? []).map((s) => s.availabilityZone))].sort();
  return {
    ...scenario,
    nodes: { controlPlane, etcd, workers: machines.length - controlPlane - etcd },
    naming: namingOf(snapshot, machines),
    aws: {
      ...scenario.aws,
      ...(aws ? { region: aws.region } : {}),
      ...(aws?.vpcs[0] ? { vpcCidr: aws.vpcs[0].cidrBlock } : {}),
      ...(zones.length > 0 ? { availabilityZones: zones } : {}),
      ...(first ? { instanceType: first.instanceType } : {}),
      ...(first?.metadataOptions
        ? {
            instanceMetadata: {
              httpTokens: first.metadataOptions.httpTokens,
              httpPutResponseHopLimit: first.metadataOptions.httpPutResponseHopLimit,
            },
          }
        : {}),
    },
    rbac: { migrationLease: leaseGranted(snapshot) ? 'granted' : 'missing' },
    workloads: workloadsOf(snapshot),
  };
}
