/**
 * The RKE (RKE1) plan (seed 002's RKE tab, seed 004's out-of-tree RKE setup and Helm values): leader
 * migration through kube-controller extra_args, the CCM from its Helm chart (RKE installs no charts), then
 * `cloud_provider: external-aws`.
 */
import { InputError } from '../../../errors/index.js';
import { parseKubernetesVersion } from '../../model/kubernetes-version.js';
import type { Change, MigrationPlan, PlanFinding } from '../../model/plan-types.js';
import type { PlannedUpgrade, PlanOptions, StepOptions } from '../distro.js';
import { CONTROL_PLANE_LABEL } from '../../ccm/index.js';
import {
  cordonStep,
  enableLeaderMigrationStep,
  kcmLeaseGrantStep,
  switchToExternalStep,
  verifyProviderIdsStep,
} from '../shared/common-steps.js';
import {
  baseName,
  definitionEditor,
  editChanges,
  undoChanges,
  type DefinitionEditor,
} from '../shared/definition-edit.js';
import { planControllerHandover, plannedCcms, withCarriedDecisions } from '../shared/controller-handover.js';
import { getPath } from '../../model/json-value.js';
import { JOURNEY_SOURCE, journeyHops, upgradeStep } from '../shared/journey-steps.js';
import { runningForms } from '../shared/releases.js';
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
import { editYamlText } from '../shared/yaml-edit.js';
import { locate } from '../shared/yaml-source.js';
import { rkeConfigOf, rkeEffectiveSettings, rkeExternalProblems } from './effective-config.js';
import { rkeStrategyFindings } from '../shared/rolling-strategy.js';
import type { RkeDefinition } from './rke-cluster.js';
import {
  addDisableLeaderMigration,
  addInstallCcm,
  ccmInstallFinding,
  confirmInstalledStep,
  hopCcmChanges,
  rkeCcmChart,
  runsHelmController,
} from './rke-ccm-steps.js';
import {
  rkeCloudConfig,
  rkeEndOfLifeFinding,
  rkeExternalAwsFinding,
  rkeKcmCloudFlags,
  customNameIndexes,
  finalStateFindings,
  namingFindings,
} from './rke-findings.js';
import { MANAGEMENT_CLUSTER, withManagementView } from './rke-management-form.js';
import { rkeApplyStep } from './rke-steps.js';
import { externalAwsToolingFinding } from './rke-tooling.js';

const SEED_002 = 'seed 002 (Rancher, "Migrating Amazon In-tree to Out-of-tree"), RKE tab';
const SEED_004 = 'seed 004 (Rancher, "Setting up the Amazon Cloud Provider"), out-of-tree RKE';
const CP_SELECTOR = `${CONTROL_PLANE_LABEL.rke}=true`;

export function planRke(def: RkeDefinition, options: PlanOptions): MigrationPlan {
  const early = refuseOrNothingToDo(def, options);
  if (early) return early;
  const { customNames, useInstanceMetadataHostname } = nodeNaming(def, options);
  const decisions = rkeDecisions(def, options, useInstanceMetadataHostname);
  const { versions, tags, handover, carried, chart, stepOptions } = decisions;

  const plan = new PlanAssembly();
  const { definition, applyCluster } = rkeDefinition(def, plan, stepOptions);

  const grant = kcmLeaseGrantStep();
  plan.addStep(grant.step);
  addEnableLeaderMigration(plan, definition, applyCluster);
  plan.addStep(
    cordonStep(
      CP_SELECTOR,
      `kubectl cordon -l "${CP_SELECTOR}", so AWS cloud controller pods run on nodes only after they are updated to the external provider.`,
      `${SEED_002}, step 2`,
    ),
  );
  addInstallCcm(plan, chart, `${SEED_002}, step 3; ${SEED_004}, Helm chart installation (RKE)`);
  plan.addStep(confirmInstalledStep(`${SEED_002}, step 4`));
  addSwitchToExternal(plan, definition, applyCluster, decisions, useInstanceMetadataHostname);
  addDisableLeaderMigration(plan, chart, `${SEED_002}, step 5 (last part)`);
  plan.addStep(verifyProviderIdsStep(`${SEED_002}, step 6`));
  for (const hop of journeyHops(stepOptions)) addRkeHop(plan, definition, applyCluster, chart, hop);
  plan.addArtifact(grant.artifact);

  const findings: PlanFinding[] = [
    ...tags.findings,
    ...namingFindings(
      def,
      customNames.length,
      useInstanceMetadataHostname,
      options.useInstanceMetadataHostname !== undefined,
    ),
    ccmInstallFinding(chart),
    ...handover.findings,
    ...(carried?.findings ?? []),
    options.rkeTooling ? externalAwsToolingFinding(options.rkeTooling) : rkeExternalAwsFinding(def.form),
    ...csiMigrationFindings(def.document),
    ...rkeStrategyFindings(rkeConfigOf(def.document)),
    ...finalStateFindings(definition.current.object),
    rkeEndOfLifeFinding(versions.upgrade),
  ];
  return migrationPlan(def, stepOptions, { steps: plan.steps, findings, artifacts: plan.artifacts });
}

/** A cluster already on external-aws has nothing to do; one not on AWS, or past the in-tree provider, is refused. */
function refuseOrNothingToDo(def: RkeDefinition, options: PlanOptions): MigrationPlan | undefined {
  rejectForeignOptions('rke', options);
  const { parsed, docIndex, rkePath, document } = def;
  const versionLocation = locate(parsed, docIndex, [...rkePath, 'kubernetes_version']);
  checkCurrentVersion('rke', def.kubernetesVersion, versionLocation);
  const settings = rkeEffectiveSettings(document);
  const problems = rkeExternalProblems(document);
  if (problems.length === 0) {
    return nothingToDoPlan(
      def,
      options,
      'cloud_provider is external-aws and kube-controller has no leader-migration argument: the cluster already uses the external provider',
    );
  }
  const inTree = [settings.kubelet, settings.kubeControllerManager, settings.kubeApiserver].includes('aws');
  if (!inTree && settings.cloudProviderName !== 'external-aws' && settings.cloudProviderName !== 'external') {
    const path = [...rkePath, 'cloud_provider', 'name'];
    throw notAwsError(
      'UP-PLAN-NOT-AWS',
      def,
      locate(parsed, docIndex, path, settings.cloudProviderName),
      'cloud_provider.name: aws',
    );
  }
  if (inTree) checkInTreeExists(def.kubernetesVersion, versionLocation, 'cloud_provider.name: aws');
  return undefined;
}

/** useInstanceMetadataHostname: what the user asked, else true unless nodes carry custom names (refused with it). */
function nodeNaming(
  def: RkeDefinition,
  options: PlanOptions,
): { readonly customNames: readonly number[]; readonly useInstanceMetadataHostname: boolean } {
  const { parsed, docIndex, rkePath, document } = def;
  const rke = rkeConfigOf(document);
  const customNames = customNameIndexes(rke);
  const firstCustom = customNames[0];
  if (options.useInstanceMetadataHostname === true && firstCustom !== undefined) {
    const path = [...rkePath, 'nodes', firstCustom, 'hostname_override'];
    throw new InputError(
      'UP-PLAN-RKE-NODE-NAMES',
      `${def.source}: useInstanceMetadataHostname cannot be combined with custom node names (hostname_override on ${customNames.length} node(s))`,
      {
        location: locate(parsed, docIndex, path, getPath(document, path)),
        hint: 'seed 004: do not enable useInstanceMetadataHostname when nodes set hostname_override / --node-name; leave the flag out (uproot then sets it to false)',
      },
    );
  }
  const useInstanceMetadataHostname = options.useInstanceMetadataHostname ?? customNames.length === 0;
  return { customNames, useInstanceMetadataHostname };
}

/** What the plan decides before any step: versions, CCM images, which controllers move, the cloud config, the chart. */
interface RkeDecisions {
  readonly versions: VersionPlan;
  readonly tags: CcmTags;
  readonly handover: ReturnType<typeof planControllerHandover>;
  readonly carried: ReturnType<typeof rkeCloudConfig>;
  readonly chart: ReturnType<typeof rkeCcmChart>;
  readonly stepOptions: StepOptions;
}

function rkeDecisions(
  def: RkeDefinition,
  options: PlanOptions,
  useInstanceMetadataHostname: boolean,
): RkeDecisions {
  const rke = rkeConfigOf(def.document);
  const versions = resolveTarget('rke', def.kubernetesVersion, options.targetVersion, options);
  const tags = ccmTags('rke', versions, options.ccmImageTag);
  const helmController = runsHelmController(rke);
  const baseOptions = stepOptionsFor(
    versions,
    tags,
    'default',
    { useInstanceMetadataHostname, ccmInstall: helmController ? 'helm-controller' : 'helm-cli' },
    'switch-to-external',
  );
  const handover = planControllerHandover({
    kcm: rkeKcmCloudFlags(rke),
    ccms: plannedCcms(baseOptions),
    withNodeIpam: options.withNodeIpam ?? false,
  });
  const carried = rkeCloudConfig(rke, plannedCcms(baseOptions));
  const chart = rkeCcmChart(helmController, tags, { ccmArgs: handover.ccmArgs, cloudConfig: carried?.text });
  const stepOptions = withCarriedDecisions(baseOptions, handover, carried);
  return { versions, tags, handover, carried, chart, stepOptions };
}

function addEnableLeaderMigration(
  plan: PlanAssembly,
  definition: DefinitionEditor,
  applyCluster: readonly Change[],
): void {
  const enable = definition.edit(
    'enable-leader-migration',
    'Set services.kube-controller.extra_args.enable-leader-migration: "true" (cloud_provider stays aws).',
    'Remove the enable-leader-migration extra_arg again.',
  );
  plan.addStep(
    enableLeaderMigrationStep({
      description:
        'Each KCM (still in-tree AWS) then runs route, service and cloud-node-lifecycle under the migration lease; from 1.22 the default configuration needs no file.',
      source: `${SEED_002}, step 1`,
      changes: editChanges(enable, ...applyCluster),
      undo: {
        description: 'Edit cluster.yml back and apply it.',
        changes: undoChanges(enable, ...applyCluster),
      },
    }),
  );
}

/** switch-to-external: cloud_provider external-aws (and, on a journey, the target kubernetes_version). */
function addSwitchToExternal(
  plan: PlanAssembly,
  definition: DefinitionEditor,
  applyCluster: readonly Change[],
  { versions }: RkeDecisions,
  useInstanceMetadataHostname: boolean,
): void {
  const upgradeText = versions.upgrade ? ` and kubernetes_version ${versions.target.raw}` : '';
  const switched = definition.edit(
    'switch-to-external',
    `Set cloud_provider to {name: external-aws, useInstanceMetadataHostname: ${useInstanceMetadataHostname}} and remove the enable-leader-migration extra_arg${upgradeText}.`,
    'Edit cluster.yml back to the in-tree provider with leader migration.',
  );
  plan.addStep(
    switchToExternalStep({
      description:
        'RKE updates and uncordons each node; the KCMs stop running the cloud controllers and the CCM pods take over through the migration lease. uproot first uncordons the control-plane nodes its cordon step cordoned, so the CCM pods are up before the roll.',
      source: `${SEED_002}, step 5; ${SEED_004}, steps 1-2 (RKE)`,
      changes: editChanges(switched, ...applyCluster),
      selector: CP_SELECTOR,
      ...(versions.upgrade ? { versionGate: gates.kubernetesVersion('rke', versions.target.raw) } : {}),
      undo: {
        description: versions.upgrade
          ? 'Rolling back to the in-tree provider is impossible once the cluster runs 1.27.'
          : 'Edit cluster.yml back and apply it: the KCMs return to in-tree with leader migration and take the migration lease back (seed 003, rollback).',
        changes: undoChanges(switched, ...applyCluster),
      },
    }),
  );
}

/** One hop of an upgrade journey: kubernetes_version, then the CCM of that minor. */
function addRkeHop(
  plan: PlanAssembly,
  definition: DefinitionEditor,
  applyCluster: readonly Change[],
  chart: ReturnType<typeof rkeCcmChart>,
  hop: PlannedUpgrade,
): void {
  const version = parseKubernetesVersion(hop.version);
  const edit = definition.edit(
    hop.step,
    `Set kubernetes_version ${hop.version}.`,
    'None: Kubernetes does not downgrade.',
  );
  const ccm = hopCcmChanges(plan, chart, hop.ccmTag);
  plan.addStep(
    upgradeStep({
      version,
      description: `RKE updates the control-plane nodes one at a time, then the workers, to ${hop.version}; then the CCM moves to ${ccmImage(hop.ccmTag)}, the release of that minor (never newer than the API server). The next hop starts only when every kubelet and the API server run ${runningForms('rke', hop.version).kubeletVersion}.`,
      source: `${JOURNEY_SOURCE}; ${SEED_002}, "If you're upgrading the cluster's Kubernetes version, set the Kubernetes version as well"`,
      changes: [...editChanges(edit, ...applyCluster), ...ccm],
      gates: [
        gates.clusterRolledOut(),
        gates.kubernetesVersion('rke', hop.version),
        gates.ccmRolledOut(),
        gates.nodesInitialized(),
        gates.loadBalancersKept(),
      ],
    }),
  );
}

/**
 * The cluster definition the steps edit, and what applies an edit: a person's `rke up` (cluster.yml) or save
 * in Rancher's form; for the management object nothing (uproot writes the v3 Cluster with its
 * resourceVersion after a backup, Rancher runs rke up, and the cluster-rolled-out gate waits for
 * status.appliedSpec).
 */
function rkeDefinition(
  def: RkeDefinition,
  plan: PlanAssembly,
  stepOptions: StepOptions,
): { definition: DefinitionEditor; applyCluster: Change[] } {
  const { docIndex, document, live } = def;
  const file = def.file.path;
  const fileName = baseName(file);
  const definition = definitionEditor({
    file,
    target: live
      ? { api: 'management', ...MANAGEMENT_CLUSTER, name: String(getPath(live, ['metadata', 'name'])) }
      : { file },
    start: { object: document, text: def.file.text },
    render: (object) =>
      editYamlText(def.file.text, docIndex, live ? withManagementView(live, object) : object),
    apply: (id, object) => rkeApplyStep(id, object, stepOptions),
    assembly: plan,
  });
  if (live) return { definition, applyCluster: [] };
  const rancher = def.form === 'rancher';
  return {
    definition,
    applyCluster: [
      {
        type: 'manual',
        description: rancher ? 'Save the edited cluster in Rancher' : 'Apply the edited cluster.yml with RKE',
        instructions: rancher
          ? `In Rancher: Cluster Management → ${def.name} → ⋮ → Edit YAML, replace the contents with the step's ${fileName}, and save. Rancher updates the nodes one by one.`
          : `rke up --config ${fileName}   (RKE updates the nodes one by one; keep cluster.rkestate next to it)`,
      },
    ],
  };
}
