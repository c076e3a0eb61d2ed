/**
 * A healthy RKE2-like cluster in the sandbox emulators, built from the same shape as the unit fixture
 * (src/core/checks/fixtures/healthy-snapshot.ts): 3 control-plane + 3 worker nodes named by private DNS
 * with providerIDs, tagged instances, subnets and one tagged security group, seed 004's IAM policies on
 * the instance roles, leader election running, seed 003's RBAC patch applied, one LoadBalancer Service
 * with its classic ELB. Tests break one thing at a time through `tweak`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startKubeApiServer,
  writeKubeconfig,
  type Identity,
  type KubeApiServer,
  type KubeObject,
} from '../../../packages/sandbox/src/apiserver/index.js';
import { startAwsEmulator, type AwsEmulator, type AwsSeed } from '../../../packages/sandbox/src/aws/index.js';
import {
  healthyCluster,
  subnetCidr,
  type HealthyCluster,
  type HealthyClusterOptions,
} from '../../../packages/uproot/src/core/checks/fixtures/healthy-snapshot.js';
import { MIGRATION_LEASE_RULE } from '../../../packages/uproot/src/core/checks/index.js';

export const ADMIN: Identity = {
  name: 'admin',
  token: 'preflight-admin',
  user: 'admin',
  groups: ['system:masters'],
};
/** Reads everything except StorageClasses. */
export const AUDITOR: Identity = { name: 'auditor', token: 'preflight-auditor', user: 'auditor' };

export interface SandboxTweaks {
  /** Edit the AWS seed before the emulator starts. */
  aws?(seed: AwsSeed & { instances: NonNullable<AwsSeed['instances']> }, cluster: HealthyCluster): void;
  /** Edit the Kubernetes objects before they are created (nodes, pods, leases, services, ...). */
  kube?(objects: KubeObject[], cluster: HealthyCluster): void;
  /** Leave the KCM's leader-locking Role unpatched (no migration-lease RBAC). */
  skipLeaseRbac?: boolean;
  /** LoadBalancer Services (default 1). */
  loadBalancers?: number;
}

export interface PreflightSandbox {
  readonly api: KubeApiServer;
  readonly aws: AwsEmulator;
  readonly cluster: HealthyCluster;
  readonly kubeconfig: string;
  /** AWS_* variables pointing the SDK at the emulator with the admin key. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

export async function startPreflightSandbox(
  options: HealthyClusterOptions & SandboxTweaks = {},
): Promise<PreflightSandbox> {
  const cluster = healthyCluster({ region: 'us-west-2', ...options });
  const seed = awsSeed(cluster);
  options.aws?.(seed, cluster);
  const aws = await startAwsEmulator({ seed });
  const lbCount = options.loadBalancers ?? 1;
  const hostnames: string[] = [];
  for (let i = 0; i < lbCount; i++) {
    const lb = aws.state.elb.create({
      name: `a${i}0000000000000000000000000000f`.slice(0, 32),
      subnetIds: cluster.subnets.map((s) => s.subnetId),
      securityGroupIds: [cluster.securityGroupId],
    });
    hostnames.push(lb.dnsName);
  }
  const version = cluster.nodes[0]?.kubeletVersion ?? 'v1.26.15+rke2r1';
  const api = await startKubeApiServer({
    identities: [ADMIN, AUDITOR],
    version: { gitVersion: version },
  });
  const objects = kubeObjects(cluster, hostnames, !options.skipLeaseRbac);
  options.kube?.(objects, cluster);
  for (const obj of objects) create(api, obj);
  const dir = mkdtempSync(join(tmpdir(), 'uproot-preflight-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(
    kubeconfig,
    [
      api.kubeconfigEntry(ADMIN, { contextName: 'admin' }),
      api.kubeconfigEntry(AUDITOR, { contextName: 'auditor' }),
    ],
    'admin',
  );
  return {
    api,
    aws,
    cluster,
    kubeconfig,
    env: {
      AWS_ENDPOINT_URL: aws.url,
      AWS_REGION: aws.region,
      AWS_ACCESS_KEY_ID: aws.adminCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: aws.adminCredentials.secretAccessKey,
      AWS_EC2_METADATA_SERVICE_ENDPOINT: `${aws.url}/`,
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    async close() {
      await Promise.all([api.close(), aws.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const RESOURCES: Record<string, string> = {
  Node: 'v1/nodes',
  Pod: 'v1/pods',
  Service: 'v1/services',
  PersistentVolume: 'v1/persistentvolumes',
  Lease: 'coordination.k8s.io/v1/leases',
  Role: 'rbac.authorization.k8s.io/v1/roles',
  ClusterRole: 'rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: 'rbac.authorization.k8s.io/v1/clusterrolebindings',
  StorageClass: 'storage.k8s.io/v1/storageclasses',
  CSIDriver: 'storage.k8s.io/v1/csidrivers',
  DaemonSet: 'apps/v1/daemonsets',
  HelmChart: 'helm.cattle.io/v1/helmcharts',
};

/** Creates, or replaces an object the API server bootstrapped (the leader-locking Roles). */
function create(api: KubeApiServer, obj: KubeObject): void {
  const resource = RESOURCES[obj.kind ?? ''];
  if (!resource) throw new Error(`sandbox-cluster: no resource for kind ${obj.kind}`);
  const namespace = obj.metadata?.namespace;
  const existing = api.store.get(resource, namespace, obj.metadata?.name ?? '');
  if (existing)
    api.store.update(
      resource,
      { ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata?.resourceVersion } },
      { namespace },
    );
  else api.store.create(resource, obj, { namespace });
}

function awsSeed(c: HealthyCluster): AwsSeed & { instances: NonNullable<AwsSeed['instances']> } {
  const profileName = (arn: string) => arn.slice(arn.lastIndexOf('/') + 1);
  return {
    accountId: c.accountId,
    region: c.region,
    vpcs: [{ id: 'vpc-00000001', cidrBlock: '10.0.0.0/16', tags: { Name: c.clusterId } }],
    subnets: c.subnets.map((s, i) => ({
      id: s.subnetId,
      vpcId: s.vpcId,
      cidrBlock: subnetCidr(i),
      availabilityZone: s.availabilityZone,
      tags: { ...s.tags },
    })),
    securityGroups: [
      {
        id: c.securityGroupId,
        name: `${c.clusterId}-nodes`,
        vpcId: 'vpc-00000001',
        tags: { [`kubernetes.io/cluster/${c.clusterId}`]: 'owned' },
      },
    ],
    instances: c.instances.map((i) => ({
      id: i.instanceId,
      privateIpAddress: i.privateIpAddress!,
      privateDnsName: i.privateDnsName,
      subnetId: i.subnetId!,
      availabilityZone: i.availabilityZone,
      securityGroupIds: [...i.securityGroupIds],
      iamInstanceProfile: profileName(i.iamInstanceProfileArn!),
      tags: { ...i.tags },
    })),
    roles: [c.roles.controlPlane, c.roles.node].map((r) => ({
      name: r.name,
      inlinePolicies: Object.fromEntries(
        r.policies.map((p) => [p.name, p.document as Record<string, unknown>]),
      ),
    })),
    instanceProfiles: [
      { name: profileName(c.profiles.controlPlane), roles: [c.roles.controlPlane.name] },
      { name: profileName(c.profiles.node), roles: [c.roles.node.name] },
    ],
  };
}

function kubeObjects(c: HealthyCluster, hostnames: readonly string[], leaseRbac: boolean): KubeObject[] {
  const now = new Date().toISOString().replace('Z', '000Z');
  const cp = c.nodes.filter((n) => 'node-role.kubernetes.io/control-plane' in n.labels);
  const objects: KubeObject[] = [];
  for (const n of c.nodes) {
    objects.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n.name, labels: { ...n.labels }, annotations: { ...n.annotations } },
      spec: { providerID: n.providerID, taints: n.taints.map((t) => ({ ...t })) },
      status: {
        nodeInfo: { kubeletVersion: n.kubeletVersion },
        addresses: [
          { type: 'InternalIP', address: n.internalIPs[0] },
          { type: 'Hostname', address: n.name },
        ],
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    });
  }
  for (const n of cp) {
    objects.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `kube-controller-manager-${n.name}`,
        namespace: 'kube-system',
        labels: { component: 'kube-controller-manager', tier: 'control-plane' },
      },
      spec: {
        nodeName: n.name,
        containers: [
          {
            name: 'kube-controller-manager',
            image: 'index.docker.io/rancher/hardened-kubernetes:v1.26.15-rke2r1-build20240416',
            command: ['kube-controller-manager'],
            args: [
              '--cloud-provider=aws',
              '--leader-elect=true',
              '--configure-cloud-routes=false',
              '--cluster-name=prod',
            ],
          },
        ],
      },
      status: { phase: 'Running' },
    });
  }
  objects.push({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' } },
    spec: {
      nodeName: c.nodes[c.nodes.length - 1]!.name,
      containers: [{ name: 'web', image: 'docker.io/library/nginx:1.27' }],
    },
    status: { phase: 'Running' },
  });
  objects.push({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'kube-controller-manager', namespace: 'kube-system' },
    spec: {
      holderIdentity: `${cp[0]?.name ?? 'cp'}_7f3e`,
      leaseDurationSeconds: 15,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    },
  });
  hostnames.forEach((hostname, i) => {
    objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `web-${i}`, namespace: 'default' },
      spec: {
        type: 'LoadBalancer',
        selector: { app: 'web' },
        ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }],
      },
      status: { loadBalancer: { ingress: [{ hostname }] } },
    });
  });
  if (leaseRbac) {
    // Seed 003's patch, written with the role's existing rules kept (the bootstrap rules of the emulator).
    objects.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'system::leader-locking-kube-controller-manager', namespace: 'kube-system' },
      rules: [
        { verbs: ['watch'], apiGroups: ['', 'coordination.k8s.io'], resources: ['configmaps', 'leases'] },
        {
          verbs: ['get', 'update'],
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['kube-controller-manager'],
        },
        {
          verbs: ['get', 'update'],
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: ['kube-controller-manager'],
        },
        {
          ...MIGRATION_LEASE_RULE,
          verbs: [...MIGRATION_LEASE_RULE.verbs],
          apiGroups: [...MIGRATION_LEASE_RULE.apiGroups],
          resources: [...MIGRATION_LEASE_RULE.resources],
          resourceNames: [...MIGRATION_LEASE_RULE.resourceNames!],
        },
      ],
    });
  }
  // The auditor may read everything but StorageClasses, and ask SubjectAccessReviews.
  objects.push(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'preflight-auditor' },
      rules: [
        {
          verbs: ['get', 'list'],
          apiGroups: ['', 'apps', 'coordination.k8s.io', 'rbac.authorization.k8s.io', 'helm.cattle.io'],
          resources: ['*'],
        },
        { verbs: ['get', 'list'], apiGroups: ['storage.k8s.io'], resources: ['csidrivers'] },
        { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] },
        { verbs: ['get'], nonResourceURLs: ['/version'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'preflight-auditor' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'preflight-auditor' },
      subjects: [{ kind: 'User', name: 'auditor', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  );
  return objects;
}
