/**
 * What preflight reads from a distribution's own cluster definition: the Rancher provisioning Cluster (RKE2),
 * an RKE cluster.yml, or a kubeadm kube-controller-manager static pod manifest. The effective configuration
 * comes from src/core/distros (Rancher's machineSelectorConfig merge, RKE's provider defaults); this keeps
 * only the settings the checks judge (cloud provider, KCM args, node naming, the planned CCM chart).
 */
import { InputError } from '../../errors/index.js';
import { rke2EffectiveConfig, roleLabels } from './rke2/index.js';
import {
  extraArgs,
  isManagementRkeCluster,
  managementView,
  rkeConfigOf,
  rkeEffectiveSettings,
} from './rke/index.js';
import {
  configuredClusterId,
  parseAwsCloudConfig,
  rkeAwsCloudProviderConfig,
} from '../cloud-config/index.js';
import type {
  ClusterDefinition,
  KubeadmDefinition,
  Rke2Definition,
  Rke2RoleConfig,
  RkeDefinition,
} from '../model/cluster-definition.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
const strList = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
const bool = (v: unknown): boolean | undefined =>
  typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined;

/** Recognises a parsed cluster definition document; throws a located InputError for anything else. */
export function readClusterDefinition(doc: unknown, source: string): ClusterDefinition {
  if (!isObj(doc)) {
    throw new InputError('UP-PREFLIGHT-CLUSTER-FILE', `${source} is not a YAML mapping`, {
      location: { file: source },
      hint: 'pass an RKE2 provisioning Cluster, an RKE cluster.yml, or a kubeadm kube-controller-manager manifest',
    });
  }
  if (str(doc.apiVersion)?.startsWith('provisioning.cattle.io/') && doc.kind === 'Cluster') {
    return readRke2(doc, source);
  }
  if (doc.kind === 'Pod') return readKubeadm(doc, source);
  // RKE under Rancher: the clusters.management.cattle.io object, read through its yaml view.
  if (isManagementRkeCluster(doc))
    return readRke(managementView(doc as Parameters<typeof managementView>[0]), source);
  if (isObj(doc.rancher_kubernetes_engine_config))
    return readRke(doc.rancher_kubernetes_engine_config, source);
  if (Array.isArray(doc.nodes) || isObj(doc.services) || isObj(doc.cloud_provider))
    return readRke(doc, source);
  throw new InputError(
    'UP-PREFLIGHT-CLUSTER-FILE',
    `${source} is not a cluster definition uproot knows (kind ${JSON.stringify(doc.kind ?? null)})`,
    {
      location: { file: source, field: 'kind', value: doc.kind ?? null },
      hint: 'pass an RKE2 provisioning Cluster (provisioning.cattle.io/v1), an RKE cluster.yml, or a kubeadm kube-controller-manager manifest',
    },
  );
}

function readRke2(doc: Obj, source: string): Rke2Definition {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const rke = isObj(spec.rkeConfig) ? spec.rkeConfig : {};
  const global = isObj(rke.machineGlobalConfig) ? rke.machineGlobalConfig : {};
  const roleConfig = (role: 'control-plane' | 'etcd' | 'worker'): Rke2RoleConfig => {
    // Rancher's merge: machineGlobalConfig, then each matching machineSelectorConfig in order (last wins).
    const merged = rke2EffectiveConfig(doc, roleLabels([role]));
    return {
      cloudProviderName: str(merged['cloud-provider-name']),
      kcmArgs: strList(merged['kube-controller-manager-arg']),
      kubeletArgs: strList(merged['kubelet-arg']),
      apiServerArgs: strList(merged['kube-apiserver-arg']),
      disableCloudController: bool(merged['disable-cloud-controller']),
      nodeName: str(merged['node-name']),
    };
  };
  const meta = isObj(doc.metadata) ? doc.metadata : {};
  return {
    distro: 'rke2',
    source,
    ...(str(meta.name) ? { name: str(meta.name) } : {}),
    ...(str(meta.namespace) ? { namespace: str(meta.namespace) } : {}),
    kubernetesVersion: str(spec.kubernetesVersion),
    cloudProviderName: str(global['cloud-provider-name']),
    roles: {
      'control-plane': roleConfig('control-plane'),
      etcd: roleConfig('etcd'),
      worker: roleConfig('worker'),
    },
    additionalManifest: str(rke.additionalManifest),
    ...optionalId(rke2ConfiguredClusterId(doc)),
  };
}

function optionalId(id: string | undefined): { configuredClusterId?: string } {
  return id === undefined ? {} : { configuredClusterId: id };
}

function rke2ConfiguredClusterId(doc: Obj): string | undefined {
  const text = rke2EffectiveConfig(doc, roleLabels(['control-plane']))['cloud-provider-config'];
  if (typeof text !== 'string' || text.startsWith('secret://')) return undefined;
  return configuredClusterId(parseAwsCloudConfig(text));
}

function readRke(doc: Obj, source: string): RkeDefinition {
  const rke = rkeConfigOf(doc);
  // Rancher defaults useInstanceMetadataHostname to true for external-aws when it is not set.
  const settings = rkeEffectiveSettings(doc);
  const nodes = (Array.isArray(rke.nodes) ? rke.nodes.filter(isObj) : []).map((n) => ({
    address: str(n.address) ?? '',
    hostnameOverride: str(n.hostname_override),
    roles: strList(n.role),
  }));
  return {
    distro: 'rke',
    source,
    kubernetesVersion: str(rke.kubernetes_version),
    cloudProviderName: settings.cloudProviderName,
    useInstanceMetadataHostname: settings.useInstanceMetadataHostname,
    nodes,
    kcmExtraArgs: Object.fromEntries(
      Object.entries(extraArgs(doc, 'kube-controller')).map(([k, v]) => [k, str(v) ?? '']),
    ),
    ...optionalId(
      isObj(rke.cloud_provider) && isObj(rke.cloud_provider.awsCloudProvider)
        ? configuredClusterId(rkeAwsCloudProviderConfig(rke.cloud_provider.awsCloudProvider))
        : undefined,
    ),
  };
}

function readKubeadm(doc: Obj, source: string): KubeadmDefinition {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isObj) : [];
  const kcm = containers.find((c) => c.name === 'kube-controller-manager') ?? containers[0];
  if (!kcm) {
    throw new InputError('UP-PREFLIGHT-CLUSTER-FILE', `${source} has no kube-controller-manager container`, {
      location: { file: source, field: 'spec.containers' },
      hint: 'pass /etc/kubernetes/manifests/kube-controller-manager.yaml from a control-plane node',
    });
  }
  return {
    distro: 'kubeadm',
    source,
    kcmArgs: [...strList(kcm.command), ...strList(kcm.args)],
    kcmImage: str(kcm.image),
  };
}
