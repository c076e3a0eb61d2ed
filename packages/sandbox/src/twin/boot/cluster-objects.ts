import { MIGRATION_LEASE_NAME } from 'uproot/core';
import { ccmClusterRole } from '../../rehearsal/cluster-objects.js';
import type { Scenario } from '../../scenarios/index.js';
import { ccmChartDefaults } from '../helm/ccm-chart.js';
import { clone, isRecord, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';

/**
 * Objects a scenario's cluster holds before anything runs: the migration-lease RBAC when the scenario says
 * it was granted, the kubeadm CCM's service account and RBAC, storage and the EBS CSI driver, and the
 * LoadBalancer Services of its workloads.
 */

export const LEADER_LOCKING_ROLES = [
  'system::leader-locking-kube-controller-manager',
  'system::leader-locking-cloud-controller-manager',
];

/** Seed 003's patch, adding the rule instead of replacing the list (so the roles keep their own lease). */
export function grantMigrationLease(kube: TwinKube): void {
  const migrationRule = {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [MIGRATION_LEASE_NAME],
    verbs: ['create', 'list', 'get', 'update'],
  };
  for (const name of LEADER_LOCKING_ROLES) {
    kube.mutate(R.roles, 'kube-system', name, (draft) => {
      const rules = Array.isArray(draft.rules) ? (draft.rules as unknown[]) : [];
      draft.rules = [...rules, migrationRule];
      return draft;
    });
  }
}

/**
 * A kubeadm cluster's CCM identity, as cloud-provider-aws's example RBAC creates it before the static pod is
 * added: the chart's ClusterRole minus cluster-wide lease access (its own lease and creating leases only),
 * so the migration lease needs seed 003's patch of the leader-locking role, as on a real cluster.
 */
export function kubeadmCcmRbac(): KubeObject[] {
  const rules = (ccmChartDefaults().clusterRoleRules as Record<string, unknown>[]).filter(
    (r) => !(Array.isArray(r.resources) && r.resources.includes('leases')),
  );
  rules.push(
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'list', 'watch'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['cloud-controller-manager'],
      verbs: ['get', 'update'],
    },
  );
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'cloud-controller-manager', namespace: 'kube-system' },
    },
    ...ccmClusterRole(rules),
  ];
}

export function storageObjects(
  scenario: Scenario,
  zones: readonly string[],
): { resource: string; object: KubeObject }[] {
  const out: { resource: string; object: KubeObject }[] = [];
  for (const sc of scenario.workloads.storageClasses) {
    out.push({
      resource: R.storageclasses,
      object: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name: sc.name,
          ...(sc.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
        },
        provisioner: sc.provisioner,
        parameters: { type: 'gp2' },
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    });
  }
  scenario.workloads.persistentVolumes.forEach((pv, i) => {
    const zone = zones[i % zones.length] ?? 'us-east-1a';
    const volumeId = `vol-0${(0x1000000 + i * 7919).toString(16).padStart(16, '0')}`;
    const source =
      pv.source === 'in-tree'
        ? { awsElasticBlockStore: { volumeID: `aws://${zone}/${volumeId}`, fsType: 'ext4' } }
        : { csi: { driver: 'ebs.csi.aws.com', volumeHandle: volumeId, fsType: 'ext4' } };
    out.push({
      resource: R.persistentvolumes,
      object: {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {
          name: pv.name,
          labels: { 'topology.kubernetes.io/zone': zone },
          ...(pv.source === 'in-tree'
            ? { annotations: { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/aws-ebs' } }
            : {}),
        },
        spec: {
          capacity: { storage: `${pv.sizeGi}Gi` },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Delete',
          storageClassName: pv.storageClassName,
          ...source,
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }],
                },
              ],
            },
          },
        },
      },
    });
    if (pv.pod) out.push(...volumeConsumer(pv.name, pv.pod, pv.storageClassName, `${pv.sizeGi}Gi`, zone));
  });
  return out;
}

/** A PersistentVolumeClaim bound to the volume, and a Pod in its zone that mounts it. */
function volumeConsumer(
  volume: string,
  pod: string,
  storageClassName: string,
  size: string,
  zone: string,
): { resource: string; object: KubeObject }[] {
  return [
    {
      resource: R.persistentvolumeclaims,
      object: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: volume,
          namespace: 'default',
          annotations: { 'pv.kubernetes.io/bind-completed': 'yes' },
        },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: size } },
          storageClassName,
          volumeName: volume,
        },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: size } },
      },
    },
    {
      resource: R.pods,
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod, namespace: 'default', labels: { app: pod } },
        spec: {
          nodeSelector: { 'topology.kubernetes.io/zone': zone },
          containers: [
            {
              name: 'app',
              image: 'docker.io/library/postgres:15',
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
            },
          ],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: volume } }],
        },
      },
    },
  ];
}

/** A scenario's DaemonSet: one pod on every node. */
export function workloadDaemonSet(spec: Scenario['workloads']['daemonSets'][number]): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: spec.name, namespace: spec.namespace },
    spec: {
      selector: { matchLabels: { app: spec.name } },
      template: {
        metadata: { labels: { app: spec.name } },
        spec: {
          tolerations: [{ operator: 'Exists' }],
          containers: [{ name: spec.name, image: spec.image }],
        },
      },
    },
  };
}

export const EBS_CSI_DRIVER_NAME = 'ebs.csi.aws.com';

/** The CSIDriver objects a twin has: the EBS driver's when it runs, and the scenario's (a replayed snapshot's). */
export function csiDriverNames(scenario: Scenario): string[] {
  const names = new Set(scenario.workloads.csiDrivers);
  if (scenario.workloads.ebsCsiDriver) names.add(EBS_CSI_DRIVER_NAME);
  return [...names].sort();
}

/**
 * A CSIDriver as the EBS driver's chart installs it (kubernetes-sigs/aws-ebs-csi-driver
 * charts/aws-ebs-csi-driver/templates/csidriver.yaml: attachRequired true, podInfoOnMount false); a driver
 * whose spec was not recorded gets the same, which is also what the API server defaults an empty spec's
 * attachRequired to (kubernetes/kubernetes pkg/apis/storage/v1/defaults.go SetDefaults_CSIDriver).
 */
export function csiDriver(name: string): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name },
    spec: { attachRequired: true, podInfoOnMount: false },
  };
}

/** The EBS CSI node plugin's DaemonSet (what preflight looks for). */
export function ebsCsiNodeDaemonSet(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'ebs-csi-node',
      namespace: 'kube-system',
      labels: { 'app.kubernetes.io/name': 'aws-ebs-csi-driver' },
    },
    spec: {
      selector: { matchLabels: { app: 'ebs-csi-node', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: { labels: { app: 'ebs-csi-node', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' } },
        spec: {
          priorityClassName: 'system-node-critical',
          tolerations: [{ operator: 'Exists' }],
          containers: [
            {
              name: 'ebs-plugin',
              image: 'public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.28.0',
              args: ['node', '--endpoint=$(CSI_ENDPOINT)'],
            },
          ],
        },
      },
    },
  };
}

export function loadBalancerService(spec: Scenario['workloads']['loadBalancerServices'][number]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: spec.name,
      namespace: spec.namespace,
      labels: { app: spec.name },
      ...(Object.keys(spec.annotations).length > 0 ? { annotations: { ...spec.annotations } } : {}),
    },
    spec: {
      type: 'LoadBalancer',
      selector: { app: spec.name },
      ports: [
        {
          name: 'tcp',
          port: spec.port,
          targetPort: spec.targetPort,
          protocol: 'TCP',
          ...(spec.nodePort ? { nodePort: spec.nodePort } : {}),
        },
      ],
      externalTrafficPolicy: 'Cluster',
    },
  };
}

/** Node ports of a stored Service (allocated by the API server). */
export function nodePortsOf(service: KubeObject): { port: number; nodePort: number }[] {
  const spec = isRecord(service.spec) ? service.spec : {};
  const ports = Array.isArray(spec.ports) ? (spec.ports as { port?: number; nodePort?: number }[]) : [];
  return ports
    .filter((p) => typeof p.port === 'number' && typeof p.nodePort === 'number')
    .map((p) => ({ port: p.port!, nodePort: p.nodePort! }));
}

export function setLoadBalancerHostname(
  kube: TwinKube,
  namespace: string,
  name: string,
  hostname: string,
): void {
  kube.mutateStatus(R.services, namespace, name, (draft) => {
    const next = clone(draft);
    next.status = { loadBalancer: { ingress: [{ hostname }] } };
    return next;
  });
}
