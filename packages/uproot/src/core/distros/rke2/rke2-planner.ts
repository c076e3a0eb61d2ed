/**
 * The RKE2 plan (seed 002's RKE2 tab, seed 004's out-of-tree setup): every step as a concrete change to the
 * Rancher provisioning Cluster, merged into what the user has, with its gates and undo.
 */
import { minorString, parseKubernetesVersion } from '../../model/kubernetes-version.js';
import { ccmUpgradeStepId, type MigrationPlan } from '../../model/plan-types.js';
import type { PlannedUpgrade, PlanOptions, StepOptions } from '../distro.js';
import { CONTROL_PLANE_LABEL, helmChartYaml, renderHelmChart, valuesYaml } from '../../ccm/index.js';
import {
  cordonStep,
  disableLeaderMigrationStep,
  enableLeaderMigrationStep,
  kcmLeaseGrantStep,
  switchToExternalStep,
  verifyProviderIdsStep,
} from '../shared/common-steps.js';
import {
  definitionEditor,
  editChanges,
  undoChanges,
  type DefinitionEditor,
} from '../shared/definition-edit.js';
import {
  APISERVER_FLAG_REASON,
  JOURNEY_SOURCE,
  apiserverDropsCloudFlags,
  ccmUpgradeStep,
  journeyHops,
  upgradeStep,
} from '../shared/journey-steps.js';
import { isRecord, type JsonRecord } from '../../model/json-value.js';
import { PlanAssembly } from '../shared/plan-assembly.js';
import { gates } from '../shared/plan-building.js';
import {
  ccmImage,
  ccmTags,
  csiMigrationFindings,
  type CcmTags,
  migrationPlan,
  notAwsError,
  nothingToDoPlan,
  rejectForeignOptions,
  stepOptionsFor,
} from '../shared/plan-common.js';
import {
  checkCurrentVersion,
  checkInTreeExists,
  resolveTarget,
  type VersionPlan,
} from '../shared/version-policy.js';
import { locate } from '../shared/yaml-source.js';
import { externalProblems, rke2NodeKinds, selectorEntries, usesInTreeAws } from './effective-config.js';
import type { Rke2Definition } from './rke2-cluster.js';
import { planControllerHandover, plannedCcms, withCarriedDecisions } from '../shared/controller-handover.js';
import { rke2CloudConfig, rke2KcmCloudFlags } from './rke2-carry-over.js';
import { finalStateFindings, rke2Findings } from './rke2-findings.js';
import { ccmValuesOf, hasApiserverCloudFlags, rke2ApplyStep } from './rke2-steps.js';
import { rke2RenderFile } from './rke2-text.js';
import { rke2StrategyFindings } from '../shared/rolling-strategy.js';

const SEED_002 = 'seed 002 (Rancher, "Migrating Amazon In-tree to Out-of-tree"), RKE2 tab';
const SEED_004 = 'seed 004 (Rancher, "Setting up the Amazon Cloud Provider"), out-of-tree RKE2';
const CP_SELECTOR = `${CONTROL_PLANE_LABEL.rke2}=true`;

type ClusterState = 'in-tree' | 'external' | 'partial' | 'not-aws';

function classify(cluster: JsonRecord): ClusterState {
  if (usesInTreeAws(cluster)) return 'in-tree';
  if (rke2NodeKinds(cluster).every((kind) => externalProblems(cluster, kind).length === 0)) return 'external';
  const rke = (cluster.spec as JsonRecord).rkeConfig as JsonRecord;
  const name = isRecord(rke.machineGlobalConfig) ? rke.machineGlobalConfig['cloud-provider-name'] : undefined;
  // Part-way through a migration (steps are idempotent, so planning again resumes it).
  return name === 'aws' || name === 'external' ? 'partial' : 'not-aws';
}

/** Node names come from the RKE2 supervisor (instance metadata) when the cluster uses `aws` and sets no node-name. */
function reliesOnSupervisorNaming(cluster: JsonRecord): boolean {
  const rke = (cluster.spec as JsonRecord).rkeConfig as JsonRecord;
  const global = isRecord(rke.machineGlobalConfig) ? rke.machineGlobalConfig : {};
  const hasNodeName =
    Object.hasOwn(global, 'node-name') ||
    selectorEntries(cluster).some((e) => isRecord(e.config) && Object.hasOwn(e.config, 'node-name'));
  return global['cloud-provider-name'] === 'aws' && !hasNodeName;
}

/** Why the switch and every hop set disable-cloud-controller (rancher/rke2#10351, rancher/rke2-docs#616). */
const CLOUD_CONTROLLER_REASON =
  'from RKE2 1.36 cloud-provider-name no longer turns RKE2\u2019s own cloud controller off, rancher/rke2#10351; RKE2\u2019s docs recommend it whenever a provider CCM runs, rancher/rke2-docs#616; it changes nothing on earlier releases';

/**
 * One hop, in two steps. The Cluster moves to the hop's release and Rancher rolls it; the whole cluster must run
 * it. Then the CCM moves to the release of that minor in a change of additionalManifest alone, which Rancher
 * delivers without restarting a node (addons.yaml is Dynamic: rancher/rancher pkg/capr/planner/config.go
 * restartStamp leaves it out), so the DaemonSet's rollout is the only thing taking a CCM away (decision 0035).
 */
function addRke2Hop(plan: PlanAssembly, definition: DefinitionEditor, hop: PlannedUpgrade): void {
  const version = parseKubernetesVersion(hop.version);
  const dropsFlags = apiserverDropsCloudFlags(version) && hasApiserverCloudFlags(definition.current.object);
  const edit = definition.edit(
    hop.step,
    `Set spec.kubernetesVersion ${hop.version}${dropsFlags ? '; remove cloud-provider and cloud-config from every kube-apiserver-arg' : ''}.`,
    'None: Kubernetes does not downgrade.',
  );
  plan.addStep(
    upgradeStep({
      version,
      description: `Rancher rolls the control-plane nodes one at a time, then the workers, to ${hop.version}. The CCM keeps its release (one minor older than the API server is within the skew policy) and moves in the next step, once the roll is done. disable-cloud-controller stays true (${CLOUD_CONTROLLER_REASON}).${dropsFlags ? ` The cloud-provider/cloud-config kube-apiserver-arg goes in the same change: ${APISERVER_FLAG_REASON}.` : ''} The next step starts only when every kubelet, the API server and the control-plane pods run ${hop.version}.`,
      source: `${JOURNEY_SOURCE}; ${SEED_002}, "If upgrading the Kubernetes version, set the Kubernetes version as well"`,
      changes: editChanges(edit),
      gates: [
        gates.clusterRolledOut(),
        gates.kubernetesVersion('rke2', hop.version),
        gates.ccmRolledOut(),
        gates.nodesInitialized(),
        gates.loadBalancersKept(),
      ],
    }),
  );
  addRke2CcmHop(plan, definition, hop, version);
}

/** Why a rollback leaves a hop's CCM move in place (engine/rollback/upgrade-boundary.ts). */
const CCM_HOP_UNDO =
  'None: the CCM moved to the release of the minor the cluster now runs, and a rollback stops before the hop that moved the cluster there (Kubernetes does not downgrade); putting the CCM a minor behind again would bring the cluster no nearer its state before the upgrade.';

/** The hop's CCM move: the HelmChart's image tag alone, after the roll (see addRke2Hop). */
function addRke2CcmHop(
  plan: PlanAssembly,
  definition: DefinitionEditor,
  hop: PlannedUpgrade,
  version: ReturnType<typeof parseKubernetesVersion>,
): void {
  const edit = definition.edit(
    ccmUpgradeStepId(version),
    `Set the CCM image tag ${hop.ccmTag} in the HelmChart values.`,
    CCM_HOP_UNDO,
  );
  plan.addStep(
    ccmUpgradeStep({
      version,
      ccmImage: ccmImage(hop.ccmTag),
      description: `The CCM moves to ${ccmImage(hop.ccmTag)}, the release of ${minorString(version)} (never newer than the API server, which now runs it). Only additionalManifest changes, so Rancher restarts no node; the CCM DaemonSet replaces one pod at a time (the chart sets no rollingUpdate, so the API server's maxUnavailable 1 applies), so each replaced pod is one handover by lease expiry, judged by promise-kept.`,
      source: `${JOURNEY_SOURCE}; Kubernetes version-skew policy (cloud-controller-manager no newer than kube-apiserver)`,
      changes: editChanges(edit),
      gates: [
        gates.clusterRolledOut(),
        gates.ccmRolledOut(),
        gates.nodesInitialized(),
        gates.loadBalancersKept(),
      ],
      undo: { description: CCM_HOP_UNDO, changes: [] },
    }),
  );
}

export function planRke2(def: Rke2Definition, options: PlanOptions): MigrationPlan {
  const early = refuseOrNothingToDo(def, options);
  if (early) return early;
  const decisions = rke2Decisions(def, options);
  const plan = new PlanAssembly();
  const definition = rke2DefinitionEditor(def, decisions.stepOptions, plan);

  const grant = kcmLeaseGrantStep();
  plan.addStep(grant.step);
  addEnableLeaderMigration(plan, definition);
  plan.addStep(
    cordonStep(
      CP_SELECTOR,
      `kubectl cordon -l "${CP_SELECTOR}", so the CCM's chart installs and its pods start on nodes only as they are updated to the external provider.`,
      `${SEED_002}, step 2`,
    ),
  );
  addInstallCcm(plan, definition, decisions);
  addSwitchToExternal(plan, definition, decisions);
  addDisableLeaderMigration(plan, definition, decisions.tags);
  plan.addStep(verifyProviderIdsStep(`${SEED_002}, step 6`));
  for (const hop of journeyHops(decisions.stepOptions)) addRke2Hop(plan, definition, hop);
  plan.addArtifact(grant.artifact);

  const findings = [
    ...decisions.tags.findings,
    ...rke2Findings(def, {
      keepAwsNodeNaming: decisions.keepAwsNodeNaming,
      supervisorNaming: decisions.supervisorNaming,
      flagGiven: options.keepAwsNodeNaming !== undefined,
      targetMinor: decisions.versions.target.minor,
      installTag: decisions.tags.installTag,
    }),
    ...decisions.handover.findings,
    ...decisions.carried.findings,
    ...csiMigrationFindings(def.cluster),
    ...rke2StrategyFindings(def.cluster),
    ...finalStateFindings(definition.current.object),
  ];
  return migrationPlan(def, decisions.stepOptions, {
    steps: plan.steps,
    findings,
    artifacts: plan.artifacts,
  });
}

/** A cluster that is already external has nothing to do; one not on AWS, or past the in-tree provider, is refused. */
function refuseOrNothingToDo(def: Rke2Definition, options: PlanOptions): MigrationPlan | undefined {
  rejectForeignOptions('rke2', options);
  const { parsed, docIndex, pathInDoc, cluster } = def;
  const versionLocation = locate(parsed, docIndex, [...pathInDoc, 'spec', 'kubernetesVersion']);
  checkCurrentVersion('rke2', def.kubernetesVersion, versionLocation);
  const state = classify(cluster);
  if (state === 'external') {
    return nothingToDoPlan(
      def,
      options,
      'every node already runs kubelet, kube-controller-manager and kube-apiserver with the external cloud provider and no leader migration on kube-controller-manager',
    );
  }
  if (state === 'not-aws') {
    const path = [...pathInDoc, 'spec', 'rkeConfig', 'machineGlobalConfig', 'cloud-provider-name'];
    throw notAwsError('UP-PLAN-NOT-AWS', def, locate(parsed, docIndex, path), 'cloud-provider-name: aws');
  }
  if (state === 'in-tree')
    checkInTreeExists(def.kubernetesVersion, versionLocation, 'cloud-provider-name: aws');
  return undefined;
}

/** What the plan decides before any step: versions, CCM images, node naming, which controllers move, the cloud config. */
interface Rke2Decisions {
  readonly versions: VersionPlan;
  readonly tags: CcmTags;
  readonly supervisorNaming: boolean;
  readonly keepAwsNodeNaming: boolean;
  readonly handover: ReturnType<typeof planControllerHandover>;
  readonly carried: ReturnType<typeof rke2CloudConfig>;
  readonly stepOptions: StepOptions;
}

function rke2Decisions(def: Rke2Definition, options: PlanOptions): Rke2Decisions {
  const { cluster } = def;
  const versions = resolveTarget('rke2', def.kubernetesVersion, options.targetVersion, options);
  const tags = ccmTags('rke2', versions, options.ccmImageTag);
  const supervisorNaming = reliesOnSupervisorNaming(cluster);
  const keepAwsNodeNaming = options.keepAwsNodeNaming ?? supervisorNaming;
  const baseOptions = stepOptionsFor(
    versions,
    tags,
    'default',
    { keepAwsNodeNaming, ccmInstall: 'additional-manifest' },
    'switch-to-external',
  );
  const handover = planControllerHandover({
    kcm: rke2KcmCloudFlags(cluster),
    ccms: plannedCcms(baseOptions),
    withNodeIpam: options.withNodeIpam ?? false,
  });
  const carried = rke2CloudConfig(cluster, plannedCcms(baseOptions));
  const stepOptions = withCarriedDecisions(baseOptions, handover, carried.carry);
  return { versions, tags, supervisorNaming, keepAwsNodeNaming, handover, carried, stepOptions };
}

/** The provisioning Cluster in Rancher's management cluster, edited step by step. */
function rke2DefinitionEditor(
  def: Rke2Definition,
  stepOptions: StepOptions,
  plan: PlanAssembly,
): DefinitionEditor {
  return definitionEditor({
    file: def.file.path,
    target: {
      api: 'management',
      apiVersion: String(def.cluster.apiVersion),
      kind: 'Cluster',
      namespace: def.namespace,
      name: def.name,
    },
    start: { object: def.cluster, text: def.file.text },
    render: (object) => rke2RenderFile(def, object),
    apply: (id, object) => rke2ApplyStep(id, object, stepOptions),
    assembly: plan,
  });
}

function addEnableLeaderMigration(plan: PlanAssembly, definition: DefinitionEditor): void {
  const enable = definition.edit(
    'enable-leader-migration',
    'Add enable-leader-migration to kube-controller-manager-arg for control-plane machines (machineSelectorConfig), keeping cloud-provider-name: aws.',
    'Remove enable-leader-migration from kube-controller-manager-arg again.',
  );
  plan.addStep(
    enableLeaderMigrationStep({
      description:
        'Rancher rolls the control-plane nodes; each KCM (still in-tree AWS) then runs route, service and cloud-node-lifecycle under the migration lease. From 1.22 the default configuration needs no file.',
      source: `${SEED_002}, step 1`,
      changes: editChanges(enable),
      undo: {
        description: 'Edit the Cluster back; Rancher rolls the control plane again.',
        changes: undoChanges(enable),
      },
    }),
  );
}

/** install-ccm (the HelmChart in additionalManifest, with its values as artifacts) and wait-ccm-rollout. */
function addInstallCcm(plan: PlanAssembly, definition: DefinitionEditor, decisions: Rke2Decisions): void {
  const { tags, versions } = decisions;
  const install = definition.edit(
    'install-ccm',
    `Append the aws-cloud-controller-manager HelmChart to spec.rkeConfig.additionalManifest (your other manifests are kept), image pinned to ${tags.installTag}, --enable-leader-migration=true.`,
    'Remove the HelmChart from additionalManifest again.',
  );
  const installValues = ccmValuesOf(definition.current.object);
  if (installValues) {
    plan.addArtifact(
      {
        path: 'ccm/values.yaml',
        description: 'Helm values of the CCM at install',
        content: valuesYaml(installValues),
      },
      {
        path: 'ccm/helmchart.yaml',
        description: 'The HelmChart as added to additionalManifest',
        content: helmChartYaml(renderHelmChart(valuesYaml(installValues))),
      },
    );
  }
  plan.addStep({
    id: 'install-ccm',
    title: 'Install the aws-cloud-controller-manager with leader migration',
    description: `Rancher delivers additionalManifest to the control-plane nodes and RKE2's helm-controller installs the chart. The image is pinned to ${ccmImage(tags.installTag)} (the chart's default v1.35.0 would be newer than the API server and name its controllers differently from the ${minorString(versions.current)} KCMs).`,
    source: `${SEED_002}, step 3; ${SEED_004}, step 4 and Helm values`,
    changes: editChanges(install),
    gates: [],
    undo: {
      description: 'Remove the HelmChart from additionalManifest.',
      changes: undoChanges(install),
    },
    optional: false,
  });

  plan.addStep({
    id: 'wait-ccm-rollout',
    title: 'Wait until Rancher has delivered the chart',
    description:
      "The chart's install Job cannot schedule on cordoned control-plane nodes, so the DaemonSet appears once the next step uncordons them (Rancher's roll uncordons only nodes it drained itself, rancher/rancher pkg/capr/planner/drain.go); the DaemonSet rollout gate is therefore checked in switch-to-external. Until then the KCMs keep the cloud controllers under the migration lease.",
    source: `${SEED_002}, step 4`,
    changes: [],
    gates: [gates.clusterRolledOut()],
    undo: { description: 'Nothing to undo.', changes: [] },
    optional: false,
  });
}

/** switch-to-external: the cluster to the external provider (and, on a journey, to the target version). */
function addSwitchToExternal(
  plan: PlanAssembly,
  definition: DefinitionEditor,
  decisions: Rke2Decisions,
): void {
  const { tags, versions, keepAwsNodeNaming } = decisions;
  const upgradeText = versions.upgrade
    ? ` and spec.kubernetesVersion ${versions.target.raw} (the CCM image stays at ${tags.installTag} until disable-leader-migration, so its pods keep running while the servers roll)${keepAwsNodeNaming ? '' : `, with disable-cloud-controller: true for the control plane (${CLOUD_CONTROLLER_REASON})`}`
    : '';
  const switched = definition.edit(
    'switch-to-external',
    keepAwsNodeNaming
      ? `Override the cloud provider per role (etcd, control-plane, worker: kubelet-arg cloud-provider=external; control-plane also kube-apiserver-arg, kube-controller-manager-arg cloud-provider=external and disable-cloud-controller: true), keep cloud-provider-name: aws for node naming, remove enable-leader-migration${upgradeText}.`
      : `Set cloud-provider-name: external and remove enable-leader-migration from kube-controller-manager-arg${upgradeText}.`,
    'Edit the Cluster back to the in-tree provider with leader migration (only possible while the version is below 1.27).',
  );
  plan.addStep(
    switchToExternalStep({
      description:
        'Rancher updates the nodes one by one; as each control-plane node restarts, its KCM stops running the cloud controllers and the CCM pods take the migration lease. uproot first uncordons the control-plane nodes its cordon step cordoned, and only those (a node you had cordoned stays cordoned), so the CCM pods are up before the roll; leader migration keeps a CCM that starts early safe.',
      source: `${SEED_002}, step 5; ${SEED_004}, step 2`,
      changes: editChanges(switched),
      selector: CP_SELECTOR,
      ...(versions.upgrade ? { versionGate: gates.kubernetesVersion('rke2', versions.target.raw) } : {}),
      undo: {
        description: versions.upgrade
          ? 'Rolling back re-enables the in-tree provider and leader migration on the KCMs; it is impossible once the cluster runs 1.27 (no in-tree provider there).'
          : 'Edit the Cluster back: the KCMs return to the in-tree provider with leader migration and take the migration lease back from the CCM (seed 003, rollback).',
        changes: undoChanges(switched),
      },
    }),
  );
}

function addDisableLeaderMigration(plan: PlanAssembly, definition: DefinitionEditor, tags: CcmTags): void {
  const disabled = definition.edit(
    'disable-leader-migration',
    tags.targetTag === tags.installTag
      ? 'Remove --enable-leader-migration=true from the CCM args in the HelmChart values.'
      : `Remove --enable-leader-migration=true from the CCM args in the HelmChart values and move the CCM image to ${tags.targetTag} (one CCM rollout for both).`,
    'Add --enable-leader-migration=true back to the CCM args.',
  );
  plan.addStep(
    disableLeaderMigrationStep({
      description:
        'Only one controller manager runs the cloud controllers now; the migration lease is no longer needed. Keeping it enabled is harmless and makes a rollback simpler.',
      source: `${SEED_002}, step 5 (last part)`,
      changes: editChanges(disabled),
      // Every edit of the Cluster is rolled out by Rancher; wait for it, or the migration reports done while
      // control-plane components are still restarting.
      gates: [gates.clusterRolledOut(), gates.ccmRolledOut()],
      undo: { description: 'Re-enable leader migration on the CCM.', changes: undoChanges(disabled) },
    }),
  );
}
