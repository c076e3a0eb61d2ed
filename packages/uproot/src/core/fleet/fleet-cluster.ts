/**
 * A downstream cluster as a fleet sees it: one `provisioning.cattle.io/v1` Cluster in Rancher's local cluster,
 * read as plain data. Which Secret holds the kubeconfig Rancher itself uses to reach it, and whether uproot can
 * migrate it at all (RKE2 provisioned by Rancher), are decided here from the object alone.
 */
import type { RancherClusterRef } from '../distros/rke2/cluster-ref.js';

export interface FleetCluster extends RancherClusterRef {
  readonly labels: Readonly<Record<string, string>>;
  /** spec.kubernetesVersion, e.g. v1.26.15+rke2r1. */
  readonly kubernetesVersion?: string;
  /** What provisions it: rke2 (spec.rkeConfig, an RKE2 version), k3s, or something uproot fleet does not migrate. */
  readonly distro: 'rke2' | 'k3s' | 'other';
  /** The Secret beside the Cluster holding the kubeconfig Rancher reaches it with. */
  readonly kubeconfigSecret: string;
  /** status.ready as Rancher reports it (its agent connected). */
  readonly ready: boolean;
}

/** `NAMESPACE/NAME`, the fleet's key for a cluster everywhere (tables, journals' local copies, Jobs). */
export function clusterKey(ref: RancherClusterRef): string {
  return `${ref.namespace}/${ref.name}`;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The kubeconfig Secret of a provisioning Cluster, named as Rancher names it: `<cluster>-kubeconfig` in the
 * Cluster's namespace, or `<clusterAPIConfig.clusterName>-kubeconfig` for a Cluster API cluster, and whatever
 * `status.clientSecretName` says once Rancher has written it (rancher/rancher
 * pkg/provisioningv2/kubeconfig/manager.go getKubeConfigSecretName and GetKubeConfig;
 * pkg/apis/provisioning.cattle.io/v1/cluster_types.go ClientSecretName). The kubeconfig is its key `value`.
 */
export function kubeconfigSecretNameOf(cluster: unknown): string {
  const obj = record(cluster);
  const status = record(obj.status);
  if (typeof status.clientSecretName === 'string' && status.clientSecretName !== '')
    return status.clientSecretName;
  const capi = record(record(obj.spec).clusterAPIConfig);
  const name = typeof capi.clusterName === 'string' && capi.clusterName ? capi.clusterName : nameOf(obj);
  return `${name}-kubeconfig`;
}

/** The Secret key holding the kubeconfig (rancher/rancher pkg/provisioningv2/kubeconfig/manager.go: Data["value"]). */
export const KUBECONFIG_SECRET_KEY = 'value';

function nameOf(obj: Record<string, unknown>): string {
  const name = record(obj.metadata).name;
  return typeof name === 'string' ? name : '';
}

/** Reads a provisioning Cluster object; undefined when it has no name or namespace. */
export function fleetClusterOf(cluster: unknown): FleetCluster | undefined {
  const obj = record(cluster);
  const metadata = record(obj.metadata);
  const name = metadata.name;
  const namespace = metadata.namespace;
  if (typeof name !== 'string' || typeof namespace !== 'string') return undefined;
  const spec = record(obj.spec);
  const version = typeof spec.kubernetesVersion === 'string' ? spec.kubernetesVersion : undefined;
  const labels = Object.fromEntries(
    Object.entries(record(metadata.labels)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return {
    namespace,
    name,
    labels,
    ...(version ? { kubernetesVersion: version } : {}),
    distro: distroOf(spec, version),
    kubeconfigSecret: kubeconfigSecretNameOf(obj),
    ready: record(obj.status).ready === true,
  };
}

/** RKE2 and K3s clusters provisioned by Rancher carry spec.rkeConfig; the version's suffix tells them apart. */
function distroOf(spec: Record<string, unknown>, version: string | undefined): FleetCluster['distro'] {
  if (spec.rkeConfig === undefined || spec.rkeConfig === null) return 'other';
  if (version?.includes('k3s')) return 'k3s';
  return 'rke2';
}
