/**
 * A distribution's own cluster definition as preflight judges it: the Rancher provisioning Cluster (RKE2), an
 * RKE cluster.yml, or a kubeadm kube-controller-manager static pod manifest, reduced to the settings the
 * checks read (cloud provider, KCM args, node naming, the planned CCM chart). src/core/distros reads one
 * (preflight-definition.ts); the snapshot carries it.
 */
export interface Rke2Definition {
  readonly distro: 'rke2';
  readonly source: string;
  /** The provisioning Cluster's metadata.name and namespace (for fixes that patch it). */
  readonly name?: string;
  readonly namespace?: string;
  readonly kubernetesVersion?: string;
  /** machineGlobalConfig `cloud-provider-name`. */
  readonly cloudProviderName?: string;
  /** Effective settings per machine role, machineGlobalConfig merged with the matching machineSelectorConfig. */
  readonly roles: Readonly<Record<'control-plane' | 'etcd' | 'worker', Rke2RoleConfig>>;
  /** spec.rkeConfig.additionalManifest (may carry the CCM HelmChart). */
  readonly additionalManifest?: string;
  /** The cluster id the control plane's cloud-provider-config names (KubernetesClusterTag/ID). */
  readonly configuredClusterId?: string;
}

export interface Rke2RoleConfig {
  readonly cloudProviderName?: string;
  readonly kcmArgs: readonly string[];
  readonly kubeletArgs: readonly string[];
  readonly apiServerArgs: readonly string[];
  readonly disableCloudController?: boolean;
  readonly nodeName?: string;
}

export interface RkeNode {
  readonly address: string;
  readonly hostnameOverride?: string;
  readonly roles: readonly string[];
}

export interface RkeDefinition {
  readonly distro: 'rke';
  readonly source: string;
  readonly kubernetesVersion?: string;
  /** cloud_provider.name: aws, external-aws, external, or none. */
  readonly cloudProviderName?: string;
  readonly useInstanceMetadataHostname?: boolean;
  readonly nodes: readonly RkeNode[];
  readonly kcmExtraArgs: Readonly<Record<string, string>>;
  /** The cluster id cloud_provider.awsCloudProvider names (kubernetes-cluster-tag/-id). */
  readonly configuredClusterId?: string;
}

export interface KubeadmDefinition {
  readonly distro: 'kubeadm';
  readonly source: string;
  readonly kcmArgs: readonly string[];
  readonly kcmImage?: string;
}

export type ClusterDefinition = Rke2Definition | RkeDefinition | KubeadmDefinition;
