/**
 * The RKE (RKE1) plan (seed 002's RKE tab, seed 004's out-of-tree RKE setup and Helm values): leader
 * migration through kube-controller extra_args, the CCM from its Helm chart (RKE installs no charts), then
 * `cloud_provider: external-aws`.
 */
import { InputError } from '../../../errors/index.js';
import { parseKubernetesVersion } from '../../model/kubernetes-version.js';
import type { Change, MigrationPlan, PlanFinding } from '../../model/plan-types.js';
import type { PlanOptions, StepOptions } from '../distro.js';
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
  migrationPlan,
  notAwsError,
  nothingToDoPlan,
  rejectForeignOptions,
  stepOptionsFor,
} from '../shared/plan-common.js';
import { checkCurrentVersion, checkInTreeExists, resolveTarget } from '../shared/version-policy.js';
import { editYamlText } from '../shared/yaml-edit.js';
import { locate } from '../shared/yaml-source.js';
import { rkeConfigOf, rkeEffectiveSettings, rkeExternalProblems } from './effective-config.js';
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
  rejectForeignOptions('rke', options);
  const { parsed, docIndex, rkePath, document } = def;
  const rke = rkeConfigOf(document);
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

  const plan = new PlanAssembly();
  const { definition, applyCluster } = rkeDefinition(def, plan, stepOptions);

  const grant = kcmLeaseGrantStep();
  plan.addStep(grant.step);

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

  plan.addStep(
    cordonStep(
      CP_SELECTOR,
      `kubectl cordon -l "${CP_SELECTOR}", so AWS cloud controller pods run on nodes only after they are updated to the external provider.`,
      `${SEED_002}, step 2`,
    ),
  );

  addInstallCcm(plan, chart, `${SEED_002}, step 3; ${SEED_004}, Helm chart installation (RKE)`);
  plan.addStep(confirmInstalledStep(`${SEED_002}, step 4`));

  const upgradeText = versions.upgrade ? ` and kubernetes_version ${versions.target.raw}` : '';
  const switched = definition.edit(
    'switch-to-external',
    `Set cloud_provider to {name: external-aws, useInstanceMetadataHostname: ${useInstanceMetadataHostname}} and remove the enable-leader-migration extra_arg${upgradeText}.`,
    'Edit cluster.yml back to the in-tree provider with leader migration.',
  );
  plan.addStep(
    switchToExternalStep({
      description:
        'RKE updates and uncordons each node; the KCMs stop running the cloud controllers and the CCM pods take over through the migration lease. uproot uncordons the control-plane nodes afterwards (a no-op where RKE already did).',
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

  addDisableLeaderMigration(plan, chart, `${SEED_002}, step 5 (last part)`);
  plan.addStep(verifyProviderIdsStep(`${SEED_002}, step 6`));
  for (const hop of journeyHops(stepOptions)) {
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
    ...csiMigrationFindings(document),
    ...finalStateFindings(definition.current.object),
    rkeEndOfLifeFinding(versions.upgrade),
  ];
  return migrationPlan(def, stepOptions, { steps: plan.steps, findings, artifacts: plan.artifacts });
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
