/**
 * A Rancher-managed RKE (RKE1) cluster as Rancher stores it: `clusters.management.cattle.io/v3`, cluster-scoped,
 * named `c-xxxxx`, with the RKE options in `spec.rancherKubernetesEngineConfig` under their JSON names
 * (rancher/rke types/rke_types.go: `kubernetesVersion`, `cloudProvider`, `services.kubeController.extraArgs`,
 * ...). Rancher's "Edit as YAML" form and cluster.yml use the yaml names (`kubernetes_version`,
 * `cloud_provider`, `services.kube-controller.extra_args`). The planner reads and edits the yaml form; this
 * translates the keys it touches both ways and leaves every other key as it is, so a live object edited through
 * the yaml view keeps everything Rancher and the user put there.
 */
import { cloneJson, isRecord, type JsonRecord } from '../../model/json-value.js';

export const MANAGEMENT_CLUSTER = { apiVersion: 'management.cattle.io/v3', kind: 'Cluster' } as const;

/** JSON name → yaml name, per level (rke_types.go struct tags). Keys not listed are the same in both. */
const TOP: readonly (readonly [string, string])[] = [
  ['kubernetesVersion', 'kubernetes_version'],
  ['cloudProvider', 'cloud_provider'],
  ['addonsInclude', 'addons_include'],
];
const SERVICES: readonly (readonly [string, string])[] = [
  ['kubeApi', 'kube-api'],
  ['kubeController', 'kube-controller'],
];
const SERVICE: readonly (readonly [string, string])[] = [
  ['extraArgs', 'extra_args'],
  ['extraArgsArray', 'extra_args_array'],
  ['extraBinds', 'extra_binds'],
  ['extraEnv', 'extra_env'],
  ['clusterCidr', 'cluster_cidr'],
  ['serviceClusterIpRange', 'service_cluster_ip_range'],
];
const NODE: readonly (readonly [string, string])[] = [
  ['hostnameOverride', 'hostname_override'],
  ['internalAddress', 'internal_address'],
];
const AWS: readonly (readonly [string, string])[] = [['serviceOverride', 'service_override']];

type Direction = 'toYaml' | 'toJson';

function rename(record: JsonRecord, pairs: readonly (readonly [string, string])[], d: Direction): JsonRecord {
  const out: JsonRecord = {};
  for (const [key, value] of Object.entries(record)) {
    const pair = pairs.find(([json, yaml]) => (d === 'toYaml' ? json : yaml) === key);
    out[pair ? (d === 'toYaml' ? pair[1] : pair[0]) : key] = value;
  }
  return out;
}

function translate(rke: unknown, d: Direction): JsonRecord {
  if (!isRecord(rke)) return {};
  const out = rename(cloneJson(rke), TOP, d);
  const services = out.services;
  if (isRecord(services)) {
    const renamed = rename(services, SERVICES, d);
    for (const [name, svc] of Object.entries(renamed))
      if (isRecord(svc)) renamed[name] = rename(svc, SERVICE, d);
    out.services = renamed;
  }
  if (Array.isArray(out.nodes)) out.nodes = out.nodes.map((n) => (isRecord(n) ? rename(n, NODE, d) : n));
  const provider = out[d === 'toYaml' ? 'cloud_provider' : 'cloudProvider'];
  if (isRecord(provider) && isRecord(provider.awsCloudProvider))
    provider.awsCloudProvider = rename(provider.awsCloudProvider, AWS, d);
  return out;
}

export function isManagementRkeCluster(value: unknown): boolean {
  return (
    isRecord(value) &&
    value.apiVersion === MANAGEMENT_CLUSTER.apiVersion &&
    value.kind === MANAGEMENT_CLUSTER.kind &&
    isRecord(value.spec) &&
    isRecord(value.spec.rancherKubernetesEngineConfig)
  );
}

/** The cluster in Rancher's "Edit as YAML" form: what the RKE planner and steps read and edit. */
export function managementView(cluster: JsonRecord): JsonRecord {
  const spec = isRecord(cluster.spec) ? cluster.spec : {};
  const metadata = isRecord(cluster.metadata) ? cluster.metadata : {};
  return {
    name: typeof spec.displayName === 'string' ? spec.displayName : String(metadata.name ?? ''),
    rancher_kubernetes_engine_config: translate(spec.rancherKubernetesEngineConfig, 'toYaml'),
  };
}

/** `cluster` with the RKE options of the edited `view` (everything else as it was). */
export function withManagementView(cluster: JsonRecord, view: unknown): JsonRecord {
  const out = cloneJson(cluster);
  const spec = isRecord(out.spec) ? out.spec : (out.spec = {});
  const rke = isRecord(view) ? view.rancher_kubernetes_engine_config : undefined;
  (spec as JsonRecord).rancherKubernetesEngineConfig = translate(rke, 'toJson');
  return out;
}
