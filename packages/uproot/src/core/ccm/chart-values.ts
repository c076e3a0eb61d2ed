/**
 * The aws-cloud-controller-manager Helm chart as the seeds install it (Rancher "Setting up the Amazon Cloud
 * Provider", Helm values for RKE2 and RKE), with the image pinned to the cluster's minor: the chart's default
 * image (v1.35.0) is far newer than any cluster that still runs the in-tree provider (reference §6).
 */
import { stringify } from 'yaml';
import type { ManualAction } from '../model/plan-types.js';
import { cloneJson, isRecord, type JsonRecord } from '../model/json-value.js';
import { flagName, setFlag, withoutFlags } from '../model/flag-list.js';
import { ROLE_TAINTS, isTolerated, tolerationFor } from '../scheduling/index.js';
import type { Taint, Toleration } from '../model/taint.js';
import { CCM_CHART } from './chart-defaults.js';
import { CCM_IMAGE_REPOSITORY } from './ccm-image.js';

/** Which node labels and taints the control plane carries. */
export type ControlPlaneFlavor = 'rke2' | 'rke';

export const CONTROL_PLANE_LABEL: Readonly<Record<ControlPlaneFlavor, string>> = {
  rke2: 'node-role.kubernetes.io/control-plane',
  rke: 'node-role.kubernetes.io/controlplane',
};

export const LEADER_MIGRATION_CHART_ARG = '--enable-leader-migration=true';

const BASE_ARGS = [
  '--configure-cloud-routes=false',
  '--use-service-account-credentials=true',
  '--v=2',
  '--cloud-provider=aws',
];

/** Seed 004's clusterRoleRules: the chart's rules plus `get` on serviceaccounts (the CCM reads them at start). */
export function seedClusterRoleRules(): JsonRecord[] {
  const rule = (apiGroup: string, resource: string, verbs: string[]): JsonRecord => ({
    apiGroups: [apiGroup],
    resources: [resource],
    verbs,
  });
  return [
    rule('', 'events', ['create', 'patch', 'update']),
    rule('', 'nodes', ['*']),
    rule('', 'nodes/status', ['patch']),
    rule('', 'services', ['list', 'patch', 'update', 'watch']),
    rule('', 'services/status', ['list', 'patch', 'update', 'watch']),
    rule('', 'serviceaccounts', ['create', 'get']),
    rule('', 'persistentvolumes', ['get', 'list', 'update', 'watch']),
    rule('', 'endpoints', ['create', 'get', 'list', 'watch', 'update']),
    rule('coordination.k8s.io', 'leases', ['create', 'get', 'list', 'watch', 'update']),
    rule('', 'serviceaccounts/token', ['create']),
  ];
}

export interface CcmValuesOptions {
  readonly flavor: ControlPlaneFlavor;
  readonly imageTag: string;
  readonly leaderMigration: boolean;
  /** Flags the CCM takes over from kube-controller-manager (route: controller-handover.ts); they win. */
  readonly extraArgs?: readonly string[];
  /** Mount the carried cloud config (ConfigMap CCM_CLOUD_CONFIG) with --cloud-config. */
  readonly cloudConfig?: boolean;
}

/**
 * The carried in-tree cloud config: a ConfigMap in the CCM's namespace, mounted through the chart's
 * extraVolumes/extraVolumeMounts (charts/aws-cloud-controller-manager/templates/daemonset.yaml, chart 0.0.11;
 * the chart has no cloud-config value: kubernetes/cloud-provider-aws#1085) and read with --cloud-config.
 */
export const CCM_CLOUD_CONFIG = {
  configMap: 'aws-cloud-config',
  key: 'cloud.conf',
  volume: 'aws-cloud-config',
  mountPath: '/etc/kubernetes/aws-cloud-config',
} as const;
export const CCM_CLOUD_CONFIG_ARG = `--cloud-config=${CCM_CLOUD_CONFIG.mountPath}/${CCM_CLOUD_CONFIG.key}`;

export function cloudConfigMap(text: string): JsonRecord {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CCM_CLOUD_CONFIG.configMap, namespace: CCM_CHART.namespace },
    data: { [CCM_CLOUD_CONFIG.key]: text },
  };
}

/** The flags the plan decides (route, --cloud-config): they replace the user's flags of the same name. */
function decidedArgs(options: CcmValuesOptions): string[] {
  return [...(options.extraArgs ?? []), ...(options.cloudConfig ? [CCM_CLOUD_CONFIG_ARG] : [])];
}

/** Adds the cloud-config volume and mount (by name: the user's other volumes stay). */
function withCloudConfigMount(values: JsonRecord): void {
  const byName = (list: unknown, entry: JsonRecord): unknown[] => [
    ...(Array.isArray(list) ? list : []).filter((v) => !(isRecord(v) && v.name === entry.name)),
    entry,
  ];
  values.extraVolumes = byName(values.extraVolumes, {
    name: CCM_CLOUD_CONFIG.volume,
    configMap: { name: CCM_CLOUD_CONFIG.configMap },
  });
  values.extraVolumeMounts = byName(values.extraVolumeMounts, {
    name: CCM_CLOUD_CONFIG.volume,
    mountPath: CCM_CLOUD_CONFIG.mountPath,
    readOnly: true,
  });
}

/** The values file for a fresh install. */
export function renderCcmValues(options: CcmValuesOptions): JsonRecord {
  const label = CONTROL_PLANE_LABEL[options.flavor];
  const nodeSelector: JsonRecord = { [label]: 'true' };
  // The chart's default nodeSelector is node-role.kubernetes.io/control-plane: "" (no RKE node has it);
  // Helm drops a default key that user values set to null, which is what seed 004's manual DaemonSet edit did.
  if (options.flavor === 'rke') nodeSelector['node-role.kubernetes.io/control-plane'] = null;
  let args = options.leaderMigration ? [...BASE_ARGS, LEADER_MIGRATION_CHART_ARG] : [...BASE_ARGS];
  for (const arg of decidedArgs(options)) args = setFlag(args, arg);
  const values: JsonRecord = {
    hostNetworking: true,
    image: { repository: CCM_IMAGE_REPOSITORY, tag: options.imageTag },
    tolerations: [
      { effect: 'NoSchedule', key: UNINITIALIZED_TAINT.key, value: 'true' },
      // `Exists` for the role taints: seed 004's `value: 'true'` does not tolerate Rancher's RKE2 taints,
      // which have no value, and the seed misses the etcd taint of combined etcd + control-plane nodes.
      ...ROLE_TAINTS[options.flavor].map(roleToleration),
    ],
    nodeSelector,
    args,
    clusterRoleRules: seedClusterRoleRules(),
  };
  if (options.cloudConfig) withCloudConfigMount(values);
  return values;
}

/**
 * Brings a user's existing values to what the migration needs, keeping everything else they set: the pinned
 * image tag, the control-plane selector and tolerations, the seed's args (the user's values win for flags
 * uproot does not need), `get` on serviceaccounts.
 */
export function ensureCcmValues(existing: unknown, options: CcmValuesOptions): JsonRecord {
  const fresh = renderCcmValues(options);
  if (!isRecord(existing)) return fresh;
  const values = cloneJson(existing);
  values.hostNetworking = true;
  values.image = { ...(isRecord(values.image) ? values.image : {}), tag: options.imageTag };
  values.tolerations = withTolerationsFor(values.tolerations, [
    UNINITIALIZED_TAINT,
    ...ROLE_TAINTS[options.flavor],
  ]);
  values.nodeSelector = {
    ...(isRecord(values.nodeSelector) ? values.nodeSelector : {}),
    ...(fresh.nodeSelector as JsonRecord),
  };
  let args = Array.isArray(values.args) ? values.args.filter((a): a is string => typeof a === 'string') : [];
  const decided = new Set(decidedArgs(options).map(flagName));
  for (const arg of fresh.args as string[]) {
    const name = flagName(arg);
    if (
      decided.has(name) ||
      name === 'cloud-provider' ||
      name === 'enable-leader-migration' ||
      !args.some((a) => flagName(a) === name)
    )
      args = setFlag(args, arg);
  }
  if (!options.leaderMigration)
    args = withoutFlags(args, ['enable-leader-migration', 'leader-migration-config']);
  values.args = args;
  values.clusterRoleRules = withServiceAccountGet(values.clusterRoleRules);
  if (options.cloudConfig) withCloudConfigMount(values);
  return values;
}

const UNINITIALIZED_TAINT: Taint = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};

function roleToleration(taint: Taint): JsonRecord {
  const { key, operator, effect } = tolerationFor(taint);
  return { effect, key, operator };
}

/** The user's tolerations plus one for each taint none of them tolerates (their own entries stay). */
function withTolerationsFor(existing: unknown, taints: readonly Taint[]): unknown[] {
  const tolerations = Array.isArray(existing) ? [...(existing as unknown[])] : [];
  const parsed: Toleration[] = tolerations.filter(isRecord).map((t) => ({
    ...(typeof t.key === 'string' ? { key: t.key } : {}),
    ...(typeof t.operator === 'string' ? { operator: t.operator } : {}),
    ...(t.value !== undefined && t.value !== null ? { value: String(t.value) } : {}),
    ...(typeof t.effect === 'string' ? { effect: t.effect } : {}),
  }));
  for (const taint of taints) {
    if (isTolerated(taint, parsed)) continue;
    const added =
      taint === UNINITIALIZED_TAINT
        ? { effect: taint.effect, key: taint.key, value: taint.value }
        : roleToleration(taint);
    tolerations.push(added);
    parsed.push(added as Toleration);
  }
  return tolerations;
}

function withServiceAccountGet(rules: unknown): JsonRecord[] {
  if (!Array.isArray(rules)) return seedClusterRoleRules();
  let found = false;
  const out = rules.map((rule) => {
    if (!isRecord(rule) || !Array.isArray(rule.resources) || !rule.resources.includes('serviceaccounts'))
      return rule;
    found = true;
    const verbs = Array.isArray(rule.verbs) ? rule.verbs : [];
    return verbs.includes('get') || verbs.includes('*') ? rule : { ...rule, verbs: [...verbs, 'get'] };
  }) as JsonRecord[];
  if (!found) out.push({ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get'] });
  return out;
}

/** Sets only the image tag (the step that upgrades Kubernetes moves the CCM with it). */
export function withImageTag(values: unknown, tag: string): JsonRecord {
  const out = isRecord(values) ? cloneJson(values) : {};
  out.image = { ...(isRecord(out.image) ? out.image : {}), tag };
  return out;
}

/** Removes `--enable-leader-migration` (and a config flag) from the CCM args: seed 002's optional last step. */
export function withoutLeaderMigration(values: unknown): JsonRecord {
  const out = isRecord(values) ? cloneJson(values) : {};
  if (Array.isArray(out.args))
    out.args = withoutFlags(
      out.args.filter((a): a is string => typeof a === 'string'),
      ['enable-leader-migration', 'leader-migration-config'],
    );
  return out;
}

export function valuesYaml(values: JsonRecord): string {
  return stringify(values, { lineWidth: 0, indentSeq: true, singleQuote: true });
}

/** The helm.cattle.io HelmChart that RKE2 (and any cluster running helm-controller) installs the chart from. */
export function renderHelmChart(valuesContent: string): JsonRecord {
  return {
    apiVersion: 'helm.cattle.io/v1',
    kind: 'HelmChart',
    metadata: { name: CCM_CHART.release, namespace: CCM_CHART.namespace },
    spec: {
      chart: CCM_CHART.chart,
      repo: CCM_CHART.repo,
      targetNamespace: CCM_CHART.namespace,
      bootstrap: true,
      valuesContent,
    },
  };
}

export function helmChartYaml(chart: JsonRecord): string {
  return stringify(chart, { lineWidth: 0, indentSeq: true, blockQuote: 'literal' });
}

/** The helm command below as data (a manual change's action). */
export function helmUpgradeAction(valuesFile: string): ManualAction {
  return {
    type: 'helm-upgrade',
    release: CCM_CHART.release,
    chart: CCM_CHART.chart,
    repo: CCM_CHART.repo,
    namespace: CCM_CHART.namespace,
    values: valuesFile,
  };
}

/** The seed's helm command for clusters without a helm-controller. */
export function helmInstallCommand(valuesFile: string): string {
  return [
    `helm repo add ${CCM_CHART.repoName} ${CCM_CHART.repo}`,
    'helm repo update',
    `helm upgrade --install ${CCM_CHART.release} ${CCM_CHART.repoName}/${CCM_CHART.chart} -n ${CCM_CHART.namespace} --values ${valuesFile}`,
  ].join('\n');
}
