/**
 * The RKE2 steps as pure, idempotent transformations of the provisioning Cluster (plain JSON). The engine
 * re-applies them to a freshly read Cluster on a conflict; the planner applies them to the user's file.
 *
 * Rancher merges machineGlobalConfig and the matching machineSelectorConfig entries key by key, last entry
 * winning, and never merges lists. So adding an argument for a role means: put it in the role's entry
 * (created at the front, seeded with what those machines inherited, so a global `kubelet-arg: [max-pods=…]`
 * is not lost), and in every other entry that sets the same key and may match machines of that role.
 */
import { InputError } from '../../../errors/index.js';
import { parseKubernetesVersion } from '../../model/kubernetes-version.js';
import type { StepId } from '../../model/plan-types.js';
import { ccmHopOf, hopOf, type PlannedUpgrade, type StepOptions } from '../distro.js';
import { CCM_CHART } from '../../ccm/index.js';
import {
  CCM_CLOUD_CONFIG,
  cloudConfigMap,
  ensureCcmValues,
  helmChartYaml,
  renderHelmChart,
  valuesYaml,
  withImageTag,
  withoutLeaderMigration,
} from '../../ccm/chart-values.js';
import { flagName, setFlag, withoutFlags } from '../../model/flag-list.js';
import { cloneJson, ensureRecord, isRecord, type JsonRecord } from '../../model/json-value.js';
import {
  appendManifest,
  findManifest,
  manifestDocuments,
  replaceManifest,
} from '../shared/manifest-stream.js';
import { APISERVER_CLOUD_FLAGS, apiserverDropsCloudFlags } from '../shared/journey-steps.js';
import { grantMigrationLease } from '../shared/migration-lease-rbac.js';
import { editYamlText } from '../shared/yaml-edit.js';
import { argList, rke2EffectiveConfig } from './effective-config.js';
import { isProvisioningCluster } from './rke2-cluster.js';
import {
  ROLE_LABEL,
  isRoleSelector,
  roleLabels,
  roleSelector,
  selectorMayMatchRole,
  type Rke2Role,
} from './machine-selector.js';

const KCM_ARG = 'kube-controller-manager-arg';
const APISERVER_ARG = 'kube-apiserver-arg';
const COMPONENT_ARG_KEYS = ['kubelet-arg', 'kube-apiserver-arg', KCM_ARG] as const;
const LEADER_MIGRATION_FLAGS = ['enable-leader-migration', 'leader-migration-config'];

export function rke2ApplyStep(stepId: StepId, current: unknown, options: StepOptions): unknown {
  // The one step that changes another object: the KCM's leader-locking Role in the downstream cluster.
  if (stepId === 'grant-migration-lease') return grantMigrationLease(current);
  if (!isProvisioningCluster(current)) {
    throw new InputError('UP-PLAN-RKE2-OBJECT', 'the object is not a provisioning.cattle.io Cluster', {
      hint: 'RKE2 steps transform the Rancher provisioning Cluster object',
    });
  }
  const cluster = cloneJson(current as JsonRecord);
  const hop = hopOf(options, stepId);
  if (hop) {
    upgradeTo(cluster, hop);
    return cluster;
  }
  const ccmHop = ccmHopOf(options, stepId);
  if (ccmHop) {
    editCcmChart(cluster, (values) => withImageTag(values, ccmHop.ccmTag), false);
    return cluster;
  }
  switch (stepId) {
    case 'enable-leader-migration':
      addArgsForRole(cluster, 'control-plane', KCM_ARG, ['enable-leader-migration']);
      return cluster;
    case 'install-ccm':
      if (options.decisions.cloudConfig !== undefined) putCloudConfig(cluster, options.decisions.cloudConfig);
      editCcmChart(cluster, (values) =>
        ensureCcmValues(values, {
          flavor: 'rke2',
          imageTag: options.ccmInstallTag,
          leaderMigration: true,
          ...(options.decisions.ccmArgs ? { extraArgs: options.decisions.ccmArgs } : {}),
          cloudConfig: options.decisions.cloudConfig !== undefined,
        }),
      );
      return cluster;
    case 'switch-to-external':
      switchToExternal(cluster, options);
      return cluster;
    case 'disable-leader-migration':
      // Also the CCM's move to the target minor, kept out of switch-to-external (see switchToExternal).
      editCcmChart(
        cluster,
        (values) => withImageTag(withoutLeaderMigration(values), options.ccmTargetTag),
        false,
      );
      return cluster;
    default:
      return current;
  }
}

function rkeConfig(cluster: JsonRecord): JsonRecord {
  return ensureRecord(cluster, ['spec', 'rkeConfig']);
}

function entriesOf(cluster: JsonRecord): JsonRecord[] {
  const rke = rkeConfig(cluster);
  if (!Array.isArray(rke.machineSelectorConfig)) rke.machineSelectorConfig = [];
  return rke.machineSelectorConfig as JsonRecord[];
}

/** The index of the role's own entry, creating it at the front when there is none. */
function roleEntryIndex(cluster: JsonRecord, role: Rke2Role): number {
  const entries = entriesOf(cluster);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (isRecord(entry) && isRoleSelector(entry.machineLabelSelector, role)) return i;
  }
  entries.unshift({ config: {}, machineLabelSelector: roleSelector(role) });
  return 0;
}

function configOf(entry: JsonRecord): JsonRecord {
  if (!isRecord(entry.config)) entry.config = {};
  return entry.config as JsonRecord;
}

/** Adds (or sets, by flag name) arguments for every machine of a role; see the module comment. */
export function addArgsForRole(
  cluster: JsonRecord,
  role: Rke2Role,
  key: string,
  args: readonly string[],
): void {
  const index = roleEntryIndex(cluster, role);
  const entries = entriesOf(cluster);
  const own = configOf(entries[index]!);
  if (!Object.hasOwn(own, key) || own[key] === null) {
    // Setting the key overrides what the role's machines inherited: start from that.
    own[key] = argList(rke2EffectiveConfig(cluster, roleLabels([role]), index)[key]);
  }
  entries.forEach((entry, i) => {
    if (!isRecord(entry) || !isRecord(entry.config)) return;
    if (
      i !== index &&
      (!Object.hasOwn(entry.config, key) || !selectorMayMatchRole(entry.machineLabelSelector, role))
    )
      return;
    let list = argList(entry.config[key]);
    for (const arg of args) list = setFlag(list, arg);
    entry.config[key] = list;
  });
}

/** Sets a plain config key for a role (e.g. disable-cloud-controller), and where a later entry overrides it. */
function setConfigForRole(cluster: JsonRecord, role: Rke2Role, key: string, value: unknown): void {
  const index = roleEntryIndex(cluster, role);
  entriesOf(cluster).forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const config = configOf(entry);
    if (i === index || (Object.hasOwn(config, key) && selectorMayMatchRole(entry.machineLabelSelector, role)))
      config[key] = value;
  });
}

/** Removes flags everywhere; drops lists that end up empty, and role entries left with nothing. */
export function removeArgs(cluster: JsonRecord, key: string, names: readonly string[]): void {
  const rke = rkeConfig(cluster);
  const strip = (config: JsonRecord): boolean => {
    if (!Object.hasOwn(config, key)) return false;
    const before = argList(config[key]);
    const after = withoutFlags(before, names);
    if (after.length === before.length) return false;
    if (after.length === 0) delete config[key];
    else config[key] = typeof config[key] === 'string' && after.length === 1 ? after[0] : after;
    return true;
  };
  if (isRecord(rke.machineGlobalConfig)) strip(rke.machineGlobalConfig);
  if (!Array.isArray(rke.machineSelectorConfig)) return;
  rke.machineSelectorConfig = rke.machineSelectorConfig.filter((entry) => {
    if (!isRecord(entry) || !isRecord(entry.config)) return true;
    const changed = strip(entry.config);
    const roleEntry = Object.keys(ROLE_LABEL).some((r) =>
      isRoleSelector(entry.machineLabelSelector, r as Rke2Role),
    );
    return !(changed && roleEntry && Object.keys(entry.config).length === 0);
  });
}

/** Rewrites an explicit `cloud-provider=…` argument wherever one is set (the user's own overrides). */
function overrideExplicitCloudProvider(cluster: JsonRecord): void {
  const rke = rkeConfig(cluster);
  const entries = Array.isArray(rke.machineSelectorConfig) ? rke.machineSelectorConfig : [];
  const configs = [
    ...(isRecord(rke.machineGlobalConfig) ? [rke.machineGlobalConfig] : []),
    ...entries
      .filter(isRecord)
      .map((e) => e.config)
      .filter(isRecord),
  ];
  for (const config of configs) {
    for (const key of COMPONENT_ARG_KEYS) {
      const list = argList(config[key]);
      if (list.some((a) => flagName(a) === 'cloud-provider'))
        config[key] = setFlag(list, 'cloud-provider=external');
    }
  }
}

function switchToExternal(cluster: JsonRecord, options: StepOptions): void {
  if (options.decisions.keepAwsNodeNaming) {
    // Seed 004: keep `aws` so RKE2 names nodes from instance metadata; override every component per role.
    // Each new role entry goes to the front, so this order leaves them etcd, control-plane, worker.
    for (const role of ['worker', 'control-plane', 'etcd'] as const)
      addArgsForRole(cluster, role, 'kubelet-arg', ['cloud-provider=external']);
    addArgsForRole(cluster, 'control-plane', 'kube-apiserver-arg', ['cloud-provider=external']);
    addArgsForRole(cluster, 'control-plane', KCM_ARG, ['cloud-provider=external']);
    setConfigForRole(cluster, 'control-plane', 'disable-cloud-controller', true);
  } else {
    ensureRecord(cluster, ['spec', 'rkeConfig', 'machineGlobalConfig'])['cloud-provider-name'] = 'external';
  }
  // After adding the overrides, so the control-plane entry that held the flag is kept, not recreated.
  removeArgs(cluster, KCM_ARG, LEADER_MIGRATION_FLAGS);
  overrideExplicitCloudProvider(cluster);
  if (options.decisions.upgrade) {
    ensureRecord(cluster, ['spec']).kubernetesVersion = options.targetVersion;
    ensureCloudControllerDisabled(cluster);
    if (apiserverDropsCloudFlags(parseKubernetesVersion(options.targetVersion)))
      removeArgs(cluster, APISERVER_ARG, APISERVER_CLOUD_FLAGS);
  }
  // The CCM image stays at the install tag here: a new tag would roll the CCM DaemonSet while Rancher restarts
  // the first server, so the CCM leader (whose migration elector is already campaigning) and the KCM holding the
  // migration lease would go at once, and a fresh CCM only starts its migration elector after winning the main
  // lease (k8s.io/cloud-provider app/controllermanager.go, leaderMigrator.MigrationReady), then waits a full
  // LeaseDuration: over 30 s without the migrated controllers. An older CCM is within the skew policy; it moves to
  // the target minor in disable-leader-migration, one DaemonSet rollout for both changes.
}

/**
 * A hop of the journey: the release and what that minor needs. Rancher rolls it like any other change of the
 * Cluster: control plane node by node, then the workers. The CCM keeps its minor here (one older than the API
 * server is within the skew policy) and moves in the hop's upgrade-ccm step once the roll is done: in one
 * edit, Rancher delivers the chart change with the first server's new plan (the addons.yaml of
 * rancher/rancher pkg/capr/planner/manifests.go) while it goes on restarting the other servers, so the
 * DaemonSet's rollout could take the leader's pod while the next candidate's node restarts.
 */
function upgradeTo(cluster: JsonRecord, hop: PlannedUpgrade): void {
  ensureRecord(cluster, ['spec']).kubernetesVersion = hop.version;
  if (apiserverDropsCloudFlags(parseKubernetesVersion(hop.version)))
    removeArgs(cluster, APISERVER_ARG, APISERVER_CLOUD_FLAGS);
  ensureCloudControllerDisabled(cluster);
}

/**
 * `disable-cloud-controller: true` on the servers, unless they already have it. Before RKE2 1.36 any
 * cloud-provider-name turned the built-in cloud controller off (pkg/rke2/rke2_linux.go set DisableCCM); from
 * v1.36.0+rke2r1 only the bundled providers (rancher-vsphere, harvester) do (rancher/rke2#10351,
 * pkg/cli/cmds/root.go validateCloudProvider), so with `aws` or `external` RKE2's own CCM would run beside the
 * aws-cloud-controller-manager and race it to initialise nodes. RKE2's docs recommend the setting whenever a
 * provider CCM is deployed (rancher/rke2-docs#616); it changes nothing on earlier releases.
 */
function ensureCloudControllerDisabled(cluster: JsonRecord): void {
  const effective = rke2EffectiveConfig(cluster, roleLabels(['control-plane']))['disable-cloud-controller'];
  if (effective === true || effective === 'true') return;
  setConfigForRole(cluster, 'control-plane', 'disable-cloud-controller', true);
}

/** kube-apiserver-arg carries cloud-provider or cloud-config somewhere (global or any selector entry). */
export function hasApiserverCloudFlags(cluster: unknown): boolean {
  if (!isRecord(cluster)) return false;
  const rke = isRecord(cluster.spec) && isRecord(cluster.spec.rkeConfig) ? cluster.spec.rkeConfig : {};
  const configs = [
    rke.machineGlobalConfig,
    ...(Array.isArray(rke.machineSelectorConfig) ? rke.machineSelectorConfig : []).map((e) =>
      isRecord(e) ? e.config : undefined,
    ),
  ];
  return configs.some(
    (config) =>
      isRecord(config) &&
      argList(config[APISERVER_ARG]).some((a) =>
        (APISERVER_CLOUD_FLAGS as readonly string[]).includes(flagName(a)),
      ),
  );
}

/**
 * Edits the aws-cloud-controller-manager HelmChart in spec.rkeConfig.additionalManifest (appending one when
 * `create` and there is none), leaving the user's other manifests as written.
 */
function editCcmChart(cluster: JsonRecord, edit: (values: unknown) => JsonRecord, create = true): void {
  const rke = rkeConfig(cluster);
  const manifest = typeof rke.additionalManifest === 'string' ? rke.additionalManifest : '';
  const docs = manifestDocuments(manifest);
  const index = findManifest(docs, { kind: 'HelmChart', name: CCM_CHART.release });
  if (index < 0) {
    if (!create) return;
    const chart = renderHelmChart(valuesYaml(edit(undefined)));
    rke.additionalManifest = appendManifest(manifest, helmChartYaml(chart));
    return;
  }
  const chart = cloneJson(docs[index] as JsonRecord);
  const spec = ensureRecord(chart, ['spec']);
  const valuesText = typeof spec.valuesContent === 'string' ? spec.valuesContent : '';
  const current = valuesText.trim() === '' ? undefined : manifestDocuments(valuesText)[0];
  const next = edit(current);
  spec.valuesContent = valuesText.trim() === '' ? valuesYaml(next) : editYamlText(valuesText, 0, next);
  rke.additionalManifest = replaceManifest(manifest, index, chart);
}

/**
 * The carried cloud config as a ConfigMap in additionalManifest, before the HelmChart, so Rancher delivers
 * both and the CCM pods find it to mount (replaced in place when it is there already).
 */
function putCloudConfig(cluster: JsonRecord, text: string): void {
  const rke = rkeConfig(cluster);
  const manifest = typeof rke.additionalManifest === 'string' ? rke.additionalManifest : '';
  const index = findManifest(manifestDocuments(manifest), {
    kind: 'ConfigMap',
    name: CCM_CLOUD_CONFIG.configMap,
  });
  rke.additionalManifest =
    index < 0
      ? appendManifest(manifest, helmChartYaml(cloudConfigMap(text)))
      : replaceManifest(manifest, index, cloudConfigMap(text));
}

/** The CCM values currently in the cluster's HelmChart (for the plan's artifacts). */
export function ccmValuesOf(cluster: unknown): JsonRecord | undefined {
  if (!isRecord(cluster)) return undefined;
  const manifest =
    isRecord(cluster.spec) && isRecord(cluster.spec.rkeConfig)
      ? cluster.spec.rkeConfig.additionalManifest
      : undefined;
  if (typeof manifest !== 'string') return undefined;
  const docs = manifestDocuments(manifest);
  const index = findManifest(docs, { kind: 'HelmChart', name: CCM_CHART.release });
  const values = isRecord(docs[index]) ? (docs[index] as JsonRecord) : undefined;
  const text = values && isRecord(values.spec) ? values.spec.valuesContent : undefined;
  if (typeof text !== 'string') return undefined;
  const [parsed] = manifestDocuments(text);
  return isRecord(parsed) ? parsed : undefined;
}
