import type { InstanceLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import type { KubeletCloudProvider, NodeConfig, StaticPodConfig } from '../nodes/node-config.js';
import type { Taint } from '../scheduling/taints.js';
import type { RkeClusterConfig, RkeNodeEntry } from './rke-cluster-config.js';

/**
 * What `rke up` starts on a node: kubelet and, on controlplane hosts, kube-apiserver and
 * kube-controller-manager as docker containers (no mirror pods). `cloud_provider.name: aws` passes the
 * in-tree `--cloud-provider=aws`; `external-aws` passes `--cloud-provider=external` and, with
 * `useInstanceMetadataHostname`, sets the kubelet's hostname-override from instance metadata's `hostname`.
 * Otherwise the hostname-override is `hostname_override`, or the node's address (RKE's default).
 */

const RKE_CONTROLPLANE_TAINT: Taint = {
  key: 'node-role.kubernetes.io/controlplane',
  value: 'true',
  effect: 'NoSchedule',
};
const RKE_ETCD_TAINT: Taint = { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' };

/**
 * The role taints `rke up` keeps on a host's Node (rancher/rke services/workerplane.go doDeployWorkerPlaneHost,
 * v1.6.3): a host without the worker role gets `node-role.kubernetes.io/etcd=true:NoExecute` when it has
 * etcd and `node-role.kubernetes.io/controlplane=true:NoSchedule` when it has controlplane; cluster.go
 * setNodeAnnotationsLabelsTaints writes them through the API at the end of every `rke up`.
 */
export function rkeHostTaints(roles: readonly string[]): Taint[] {
  if (roles.includes('worker')) return [];
  return [
    ...(roles.includes('etcd') ? [RKE_ETCD_TAINT] : []),
    ...(roles.includes('controlplane') ? [RKE_CONTROLPLANE_TAINT] : []),
  ];
}

const RKE_CLOUD_CONFIG = '/etc/kubernetes/cloud-config';

function providerFlag(name: string): KubeletCloudProvider {
  if (name === 'aws') return 'aws';
  if (name === 'external-aws' || name === 'external') return 'external';
  return '';
}

function withExtra(base: Record<string, string>, extra: Readonly<Record<string, string>>): string[] {
  const merged = { ...base, ...extra };
  return Object.entries(merged).map(([k, v]) => `--${k}=${v}`);
}

export function rkeNodeConfig(
  cluster: RkeClusterConfig,
  entry: RkeNodeEntry,
  instance: InstanceLayout,
  version: DistroVersion,
): NodeConfig {
  const provider = providerFlag(cluster.cloudProviderName);
  const hostnameOverride =
    provider === 'external' && cluster.useInstanceMetadataHostname
      ? instance.imdsHostname
      : (entry.hostnameOverride ?? entry.address);
  // RKE deploys /etc/kubernetes/cloud-config to every node and passes --cloud-config (rancher/rke
  // cluster/hosts.go deployFile, cluster/plan.go); the twin does so when awsCloudProvider is set.
  const cloudConfigFile = cluster.cloudConfig === undefined ? undefined : RKE_CLOUD_CONFIG;
  const cloud: Record<string, string> = {
    ...(provider ? { 'cloud-provider': provider } : {}),
    ...(provider && cloudConfigFile ? { 'cloud-config': cloudConfigFile } : {}),
  };
  const files = cloudConfigFile ? { [cloudConfigFile]: cluster.cloudConfig ?? '' } : undefined;
  const kubeletArgs = withExtra(
    {
      'hostname-override': hostnameOverride,
      'node-ip': entry.internalAddress ?? entry.address,
      ...cloud,
      'cluster-dns': '10.43.0.10',
      'cluster-domain': 'cluster.local',
      kubeconfig: '/etc/kubernetes/ssl/kubecfg-kube-node.yaml',
    },
    cluster.extraArgs.kubelet,
  );
  const kubeletProvider =
    /^--cloud-provider=(.*)$/.exec(kubeletArgs.find((a) => a.startsWith('--cloud-provider=')) ?? '')?.[1] ??
    '';
  const isControl = entry.roles.includes('controlplane');
  const isWorker = entry.roles.includes('worker');
  const labels: Record<string, string> = {};
  if (isControl) labels['node-role.kubernetes.io/controlplane'] = 'true';
  if (entry.roles.includes('etcd')) labels['node-role.kubernetes.io/etcd'] = 'true';
  if (isWorker) labels['node-role.kubernetes.io/worker'] = 'true';
  const staticPods: StaticPodConfig[] = [];
  if (isControl) {
    const image = `rancher/hyperkube:${version.imageTag}`;
    staticPods.push(
      {
        component: 'kube-apiserver',
        image,
        command: ['kube-apiserver'],
        args: withExtra(
          {
            'allow-privileged': 'true',
            'authorization-mode': 'Node,RBAC',
            'bind-address': '0.0.0.0',
            ...cloud,
            'etcd-servers': 'https://127.0.0.1:2379',
            'secure-port': '6443',
            'service-cluster-ip-range': '10.43.0.0/16',
          },
          cluster.extraArgs['kube-api'],
        ),
        volumes: [],
        mirror: false,
        ...(files ? { files } : {}),
      },
      {
        component: 'kube-controller-manager',
        image,
        command: ['kube-controller-manager'],
        args: withExtra(
          {
            'allocate-node-cidrs': 'true',
            ...cloud,
            'cluster-cidr': '10.42.0.0/16',
            'configure-cloud-routes': 'false',
            kubeconfig: '/etc/kubernetes/ssl/kubecfg-kube-controller-manager.yaml',
            'leader-elect': 'true',
            'node-monitor-grace-period': '40s',
            'service-cluster-ip-range': '10.43.0.0/16',
            'use-service-account-credentials': 'true',
          },
          cluster.extraArgs['kube-controller'],
        ),
        volumes: [],
        mirror: false,
        ...(files ? { files } : {}),
      },
    );
  }
  return {
    kubelet: {
      cloudProvider: providerFlag(kubeletProvider),
      hostnameOverride,
      args: kubeletArgs,
      version: version.kubelet,
    },
    staticPods,
    labels,
    // The kubelet registers with RKE's control-plane taint (cluster/plan.go: register-with-taints when
    // controlplane and not worker); `rke up` adds the etcd one afterwards (rkeHostTaints).
    taints: isControl && !isWorker ? [RKE_CONTROLPLANE_TAINT] : [],
    annotations: {
      'rke.cattle.io/external-ip': entry.address,
      'rke.cattle.io/internal-ip': entry.internalAddress ?? entry.address,
    },
  };
}
