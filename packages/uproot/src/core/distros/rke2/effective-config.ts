/**
 * The effective RKE2 configuration of a machine, as Rancher computes it: machineGlobalConfig, then every
 * machineSelectorConfig entry whose selector matches the machine's labels, in order, each key replacing the
 * previous value (last wins; lists are not merged). From it, the settings that decide the cloud provider.
 *
 * Reused by the sandbox twin to decide how its simulated RKE2 nodes run their components.
 */
import { isRecord, type JsonRecord } from '../../model/json-value.js';
import { boolFlag, lastFlagValue } from '../../model/flag-list.js';
import { RKE2_ROLES, roleLabels, selectorMatches, type Labels, type Rke2Role } from './machine-selector.js';

/**
 * `aws` (in-tree), `external`, `rke2` (RKE2's own cloud controller, the default), `none` (kube-apiserver from
 * 1.33, which has no cloud provider), or another provider name.
 */
export type CloudProviderSetting = 'aws' | 'external' | 'rke2' | (string & {});

export interface Rke2EffectiveSettings {
  readonly cloudProviderName: string | undefined;
  readonly kubelet: CloudProviderSetting;
  readonly kubeControllerManager: CloudProviderSetting;
  readonly kubeApiserver: CloudProviderSetting;
  /** `enable-leader-migration` in kube-controller-manager-arg (last occurrence wins). */
  readonly kcmLeaderMigration: boolean;
  readonly disableCloudController: boolean;
  /** RKE2 names the node from instance metadata: cloud-provider-name aws and no node-name. */
  readonly nodeNameFromInstanceMetadata: boolean;
}

function rkeConfigOf(cluster: unknown): JsonRecord {
  if (!isRecord(cluster) || !isRecord(cluster.spec) || !isRecord(cluster.spec.rkeConfig)) return {};
  return cluster.spec.rkeConfig;
}

export function selectorEntries(cluster: unknown): JsonRecord[] {
  const entries = rkeConfigOf(cluster).machineSelectorConfig;
  return Array.isArray(entries) ? entries.filter(isRecord) : [];
}

/**
 * The merged config for a machine with these labels. `upTo` stops before that entry index (what an entry
 * inserted there would inherit).
 */
export function rke2EffectiveConfig(cluster: unknown, labels: Labels, upTo?: number): JsonRecord {
  const rke = rkeConfigOf(cluster);
  const result: JsonRecord = { ...(isRecord(rke.machineGlobalConfig) ? rke.machineGlobalConfig : {}) };
  selectorEntries(cluster).forEach((entry, index) => {
    if (upTo !== undefined && index >= upTo) return;
    if (selectorMatches(entry.machineLabelSelector, labels) && isRecord(entry.config))
      Object.assign(result, entry.config);
  });
  return result;
}

/** An RKE2 `*-arg` value as a list (the config accepts a single string too). */
export function argList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function rke2EffectiveSettings(cluster: unknown, labels: Labels): Rke2EffectiveSettings {
  const config = rke2EffectiveConfig(cluster, labels);
  const name = typeof config['cloud-provider-name'] === 'string' ? config['cloud-provider-name'] : undefined;
  // What RKE2 passes to the components for the provider name (before v1.29.11 `aws` meant the in-tree flags).
  const base: CloudProviderSetting = name === undefined || name === '' ? 'rke2' : name;
  const component = (key: string, fallback = base): CloudProviderSetting =>
    lastFlagValue(argList(config[key]), 'cloud-provider') ?? fallback;
  const nodeName = config['node-name'];
  return {
    cloudProviderName: name,
    kubelet: component('kubelet-arg'),
    kubeControllerManager: component('kube-controller-manager-arg'),
    kubeApiserver: component('kube-apiserver-arg', apiserverHasNoCloudProvider(cluster) ? 'none' : base),
    kcmLeaderMigration:
      boolFlag(argList(config['kube-controller-manager-arg']), 'enable-leader-migration') ?? false,
    disableCloudController:
      config['disable-cloud-controller'] === true || config['disable-cloud-controller'] === 'true',
    nodeNameFromInstanceMetadata:
      name === 'aws' && (nodeName === undefined || nodeName === null || nodeName === ''),
  };
}

export interface Rke2NodeKind {
  /** e.g. `machine pool "pool-cp" (control-plane, etcd)` or `a node with roles etcd, worker`. */
  readonly description: string;
  readonly roles: readonly Rke2Role[];
  readonly labels: Labels;
}

/**
 * From RKE2 v1.33.0+rke2r1 RKE2 passes no --cloud-provider to kube-apiserver (pkg/podexecutor/staticpod.go),
 * whose 1.33 release removed the flag (kubernetes/kubernetes#130162): its provider is `none` unless an
 * explicit kube-apiserver-arg sets one (which 1.33 then refuses).
 */
function apiserverHasNoCloudProvider(cluster: unknown): boolean {
  const version = isRecord(cluster) && isRecord(cluster.spec) ? cluster.spec.kubernetesVersion : undefined;
  const m = typeof version === 'string' ? /^v?1\.(\d+)\./.exec(version) : null;
  return m !== null && Number(m[1]) >= 33;
}

/** Every role combination a node can have, plus each machine pool's labels (pool labels can match selectors). */
export function rke2NodeKinds(cluster: unknown): Rke2NodeKind[] {
  const kinds: Rke2NodeKind[] = [];
  const pools = rkeConfigOf(cluster).machinePools;
  if (Array.isArray(pools)) {
    for (const pool of pools.filter(isRecord)) {
      const roles = RKE2_ROLES.filter(
        (r) =>
          pool[r === 'control-plane' ? 'controlPlaneRole' : r === 'etcd' ? 'etcdRole' : 'workerRole'] ===
          true,
      );
      if (roles.length === 0) continue;
      const extra = isRecord(pool.labels)
        ? Object.fromEntries(Object.entries(pool.labels).map(([k, v]) => [k, String(v)]))
        : {};
      kinds.push({
        description: `machine pool "${String(pool.name ?? '?')}" (${roles.join(', ')})`,
        roles,
        labels: roleLabels(roles, extra),
      });
    }
  }
  for (let mask = 1; mask < 8; mask++) {
    const roles = RKE2_ROLES.filter((_, i) => mask & (1 << i));
    kinds.push({ description: `a node with roles ${roles.join(', ')}`, roles, labels: roleLabels(roles) });
  }
  return kinds;
}

/** Where a node kind still differs from the external provider; empty when every component is external. */
export function externalProblems(cluster: unknown, kind: Rke2NodeKind): string[] {
  const s = rke2EffectiveSettings(cluster, kind.labels);
  const problems: string[] = [];
  if (s.kubelet !== 'external') problems.push(`kubelet cloud provider is ${s.kubelet}`);
  if (kind.roles.includes('control-plane')) {
    if (s.kubeControllerManager !== 'external')
      problems.push(`kube-controller-manager cloud provider is ${s.kubeControllerManager}`);
    if (s.kubeApiserver !== 'external' && s.kubeApiserver !== 'none')
      problems.push(`kube-apiserver cloud provider is ${s.kubeApiserver}`);
    if (s.kcmLeaderMigration) problems.push('kube-controller-manager still has enable-leader-migration');
    if (s.cloudProviderName !== 'external' && !s.disableCloudController)
      problems.push('RKE2 still runs its own cloud controller (disable-cloud-controller is not set)');
  }
  return problems;
}

/** True when some node kind runs a component with the in-tree AWS provider. */
export function usesInTreeAws(cluster: unknown): boolean {
  return rke2NodeKinds(cluster).some((kind) => {
    const s = rke2EffectiveSettings(cluster, kind.labels);
    return (
      s.kubelet === 'aws' ||
      (kind.roles.includes('control-plane') &&
        (s.kubeControllerManager === 'aws' || s.kubeApiserver === 'aws'))
    );
  });
}
