/**
 * The RKE (RKE1) plan (seed 002's RKE tab, seed 004's out-of-tree RKE setup and Helm values): leader
 * migration through kube-controller extra_args, the CCM from its Helm chart (RKE installs no charts), then
 * `cloud_provider: external-aws`.
 */
import { InputError } from '../../../errors/index.js';
import type {
  Artifact,
  Change,
  MigrationPlan,
  PlanFinding,
  PlanStep,
  StepId,
} from '../../plan/plan-types.js';
import type { PlanOptions, StepOptions } from '../distro.js';
import {
  CONTROL_PLANE_LABEL,
  helmChartYaml,
  helmInstallCommand,
  renderCcmValues,
  renderHelmChart,
  valuesYaml,
  withImageTag,
  withoutLeaderMigration,
  type CcmValuesOptions,
} from '../shared/ccm-chart.js';
import {
  baseName,
  definitionEdit,
  stepArtifactPath,
  type DefinitionState,
} from '../shared/definition-edit.js';
import { getPath, isRecord, type JsonRecord } from '../shared/json-value.js';
import { cordonStep, kcmLeaseGrantStep, verifyProviderIdsStep } from '../shared/common-steps.js';
import {
  ccmImage,
  ccmTags,
  csiMigrationFindings,
  nothingToDoPlan,
  rejectForeignOptions,
} from '../shared/plan-common.js';
import { gates, handOverGates } from '../shared/plan-building.js';
import { checkCurrentVersion, checkInTreeExists, resolveTarget } from '../shared/version-policy.js';
import { editYamlText } from '../shared/yaml-edit.js';
import { locate } from '../shared/yaml-source.js';
import { rkeConfigOf, rkeEffectiveSettings, rkeExternalProblems } from './effective-config.js';
import type { RkeDefinition } from './rke-cluster.js';
import { namingFindings, withoutBootstrap } from './rke-findings.js';
import { rkeApplyStep } from './rke-steps.js';

const SEED_002 = 'seed 002 (Rancher, "Migrating Amazon In-tree to Out-of-tree"), RKE tab';
const SEED_004 = 'seed 004 (Rancher, "Setting up the Amazon Cloud Provider"), out-of-tree RKE';
const CP_SELECTOR = `${CONTROL_PLANE_LABEL.rke}=true`;

function runsHelmController(rke: JsonRecord): boolean {
  const addons = typeof rke.addons === 'string' ? rke.addons : '';
  const includes = Array.isArray(rke.addons_include) ? rke.addons_include.join('\n') : '';
  return /helm-controller|helm\.cattle\.io/.test(`${addons}\n${includes}`);
}

/** Nodes that set their own name (seed 004: such names and useInstanceMetadataHostname must not be combined). */
function customNameIndexes(rke: JsonRecord): number[] {
  const nodes = Array.isArray(rke.nodes) ? rke.nodes : [];
  return nodes
    .map((node, i) =>
      isRecord(node) && typeof node.hostname_override === 'string' && node.hostname_override !== '' ? i : -1,
    )
    .filter((i) => i >= 0);
}

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
      'cloud_provider is external-aws and kube-controller has no leader-migration argument: the cluster already uses the external provider',
    );
  }
  const inTree = [settings.kubelet, settings.kubeControllerManager, settings.kubeApiserver].includes('aws');
  if (!inTree && settings.cloudProviderName !== 'external-aws' && settings.cloudProviderName !== 'external') {
    throw new InputError(
      'UP-PLAN-NOT-AWS',
      `${def.source}: the cluster does not use the AWS cloud provider`,
      {
        location: locate(
          parsed,
          docIndex,
          [...rkePath, 'cloud_provider', 'name'],
          settings.cloudProviderName,
        ),
        hint: 'uproot migrates clusters from the in-tree AWS provider (cloud_provider.name: aws) to the aws-cloud-controller-manager',
      },
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

  const versions = resolveTarget('rke', def.kubernetesVersion, options.targetVersion);
  const tags = ccmTags('rke', versions, options.ccmImageTag);
  const helmController = runsHelmController(rke);
  const stepOptions: StepOptions = {
    currentVersion: versions.current.raw,
    targetVersion: versions.target.raw,
    ccmInstallTag: tags.installTag,
    ccmTargetTag: tags.targetTag,
    leaderMigrationConfig: 'default',
    decisions: {
      useInstanceMetadataHostname,
      ccmInstall: helmController ? 'helm-controller' : 'helm-cli',
      upgrade: versions.upgrade,
    },
  };

  const file = def.file.path;
  const fileName = baseName(file);
  const render = (object: unknown): string => editYamlText(def.file.text, docIndex, object);
  let current: DefinitionState = { object: document, text: def.file.text };
  const artifacts: Artifact[] = [];
  const steps: PlanStep[] = [];
  const applyCluster: Change = {
    type: 'manual',
    description:
      def.form === 'rancher' ? 'Save the edited cluster in Rancher' : 'Apply the edited cluster.yml with RKE',
    instructions:
      def.form === 'rancher'
        ? `In Rancher: Cluster Management → ${def.name} → ⋮ → Edit YAML, replace the contents with the step's ${fileName}, and save. Rancher updates the nodes one by one.`
        : `rke up --config ${fileName}   (RKE updates the nodes one by one; keep cluster.rkestate next to it)`,
  };

  const edit = (id: StepId, description: string, undoDescription: string) => {
    const result = definitionEdit({
      file,
      target: { file },
      before: current,
      afterObject: rkeApplyStep(id, current.object, stepOptions),
      render,
      description,
      undoDescription,
    });
    if (result) {
      current = result.after;
      artifacts.push({
        path: stepArtifactPath(steps.length, id, fileName),
        description: `${file} after step ${id}`,
        content: result.after.text,
      });
    }
    return result;
  };

  const valuesFor = (o: Omit<CcmValuesOptions, 'flavor'>): JsonRecord =>
    renderCcmValues({ flavor: 'rke', ...o });
  const ccmChange = (values: JsonRecord, valuesPath: string, what: string): Change =>
    helmController
      ? {
          type: 'apply-object',
          description: `${what}: apply the aws-cloud-controller-manager HelmChart (the cluster runs helm-controller).`,
          api: 'downstream',
          object: withoutBootstrap(renderHelmChart(valuesYaml(values))),
        }
      : {
          type: 'manual',
          description: `${what}: helm upgrade --install with ${valuesPath}.`,
          instructions: helmInstallCommand(valuesPath),
        };

  const grant = kcmLeaseGrantStep();
  steps.push(grant.step);

  const enable = edit(
    'enable-leader-migration',
    'Set services.kube-controller.extra_args.enable-leader-migration: "true" (cloud_provider stays aws).',
    'Remove the enable-leader-migration extra_arg again.',
  );
  steps.push({
    id: 'enable-leader-migration',
    title: 'Enable leader migration on kube-controller-manager',
    description:
      'Each KCM (still in-tree AWS) then runs route, service and cloud-node-lifecycle under the migration lease; from 1.22 the default configuration needs no file.',
    source: `${SEED_002}, step 1`,
    changes: enable ? [enable.change, applyCluster] : [],
    gates: [
      gates.clusterRolledOut(),
      gates.controlPlaneFlags('aws', true),
      gates.migrationLeaseHeld('kube-controller-manager'),
    ],
    undo: {
      description: 'Edit cluster.yml back and apply it.',
      changes: enable ? [enable.undo, applyCluster] : [],
    },
    optional: false,
  });

  steps.push(
    cordonStep(
      CP_SELECTOR,
      `kubectl cordon -l "${CP_SELECTOR}", so AWS cloud controller pods run on nodes only after they are updated to the external provider.`,
      `${SEED_002}, step 2`,
    ),
  );

  const installValues = valuesFor({ imageTag: tags.installTag, leaderMigration: true });
  artifacts.push({
    path: 'ccm/values.yaml',
    description: 'Helm values for the CCM install (seed 004, RKE)',
    content: valuesYaml(installValues),
  });
  if (helmController)
    artifacts.push({
      path: 'ccm/helmchart.yaml',
      description: 'The HelmChart for helm-controller',
      content: helmChartYaml(withoutBootstrap(renderHelmChart(valuesYaml(installValues)))),
    });
  steps.push({
    id: 'install-ccm',
    title: 'Install the aws-cloud-controller-manager with leader migration',
    description: `RKE installs no charts: ${helmController ? 'the cluster runs helm-controller, so uproot applies a HelmChart' : 'install it with helm and the values file'}. The image is pinned to ${ccmImage(tags.installTag)}; the values use RKE's node-role.kubernetes.io/controlplane selector and toleration and drop the chart's default control-plane selector (seed 004's manual DaemonSet edit).`,
    source: `${SEED_002}, step 3; ${SEED_004}, Helm chart installation (RKE)`,
    changes: [ccmChange(installValues, 'ccm/values.yaml', 'Install the CCM')],
    gates: [],
    undo: {
      description: 'Uninstall the chart.',
      changes: [
        helmController
          ? {
              type: 'manual',
              description: 'Delete the HelmChart',
              instructions: 'kubectl delete helmchart -n kube-system aws-cloud-controller-manager',
            }
          : {
              type: 'manual',
              description: 'Uninstall the release',
              instructions: 'helm uninstall -n kube-system aws-cloud-controller-manager',
            },
      ],
    },
    optional: false,
  });

  steps.push({
    id: 'wait-ccm-rollout',
    title: 'Confirm the chart is installed',
    description:
      'helm status -n kube-system aws-cloud-controller-manager shows the release deployed. Its pods may wait for the next step (seed 002: the control-plane nodes are cordoned); the DaemonSet rollout gate is checked in switch-to-external, and leader migration keeps a CCM that starts earlier safe.',
    source: `${SEED_002}, step 4`,
    changes: [],
    gates: [],
    undo: { description: 'Nothing to undo.', changes: [] },
    optional: false,
  });

  const upgradeText = versions.upgrade ? ` and kubernetes_version ${versions.target.raw}` : '';
  const switched = edit(
    'switch-to-external',
    `Set cloud_provider to {name: external-aws, useInstanceMetadataHostname: ${useInstanceMetadataHostname}} and remove the enable-leader-migration extra_arg${upgradeText}.`,
    'Edit cluster.yml back to the in-tree provider with leader migration.',
  );
  const targetValues = valuesFor({ imageTag: tags.targetTag, leaderMigration: true });
  const moveCcm = tags.targetTag !== tags.installTag;
  if (moveCcm)
    artifacts.push({
      path: `ccm/values-${tags.targetTag}.yaml`,
      description: 'Helm values with the CCM at the target minor',
      content: valuesYaml(targetValues),
    });
  steps.push({
    id: 'switch-to-external',
    title: 'Switch the cluster to the external cloud provider',
    description:
      'RKE updates and uncordons each node; the KCMs stop running the cloud controllers and the CCM pods take over through the migration lease. uproot uncordons the control-plane nodes afterwards (a no-op where RKE already did).',
    source: `${SEED_002}, step 5; ${SEED_004}, steps 1-2 (RKE)`,
    changes: [
      ...(switched ? [switched.change, applyCluster] : []),
      ...(moveCcm
        ? [
            ccmChange(
              targetValues,
              `ccm/values-${tags.targetTag}.yaml`,
              `Move the CCM to ${tags.targetTag} with the cluster`,
            ),
          ]
        : []),
      {
        type: 'uncordon-nodes',
        description: `Uncordon nodes matching ${CP_SELECTOR}.`,
        selector: CP_SELECTOR,
      },
    ],
    gates: [gates.clusterRolledOut(), gates.controlPlaneFlags('external', false), ...handOverGates()],
    undo: {
      description: versions.upgrade
        ? 'Rolling back to the in-tree provider is impossible once the cluster runs 1.27.'
        : 'Edit cluster.yml back and apply it: the KCMs return to in-tree with leader migration and take the migration lease back (seed 003, rollback).',
      changes: switched ? [switched.undo, applyCluster] : [],
    },
    optional: false,
  });

  const finalValues = withoutLeaderMigration(withImageTag(installValues, tags.targetTag));
  artifacts.push({
    path: 'ccm/values-without-leader-migration.yaml',
    description: 'Helm values after disabling leader migration',
    content: valuesYaml(finalValues),
  });
  steps.push({
    id: 'disable-leader-migration',
    title: 'Disable leader migration on the CCM (optional)',
    description:
      'Upgrade the chart without --enable-leader-migration=true; only one controller manager runs the cloud controllers now.',
    source: `${SEED_002}, step 5 (last part)`,
    changes: [ccmChange(finalValues, 'ccm/values-without-leader-migration.yaml', 'Disable leader migration')],
    gates: [gates.ccmRolledOut()],
    undo: {
      description: 'Upgrade the chart with leader migration again.',
      changes: [
        ccmChange(
          targetValues,
          moveCcm ? `ccm/values-${tags.targetTag}.yaml` : 'ccm/values.yaml',
          'Re-enable leader migration',
        ),
      ],
    },
    optional: true,
  });

  steps.push(verifyProviderIdsStep(`${SEED_002}, step 6`));

  artifacts.push(grant.artifact);

  const findings: PlanFinding[] = [
    ...tags.findings,
    ...namingFindings(
      def,
      customNames.length,
      useInstanceMetadataHostname,
      options.useInstanceMetadataHostname !== undefined,
    ),
    {
      severity: 'info',
      code: 'ccm-install-method',
      message: helmController
        ? 'The cluster runs helm-controller (found in addons), so the CCM is installed by applying a HelmChart.'
        : 'RKE does not install charts and no helm-controller was found in addons: install the CCM with helm and ccm/values.yaml (the plan has the command).',
    },
    ...(isRecord(rke.cloud_provider) && isRecord(rke.cloud_provider.awsCloudProvider)
      ? [
          {
            severity: 'info' as const,
            code: 'aws-cloud-provider-config-kept',
            message:
              'cloud_provider.awsCloudProvider is kept as written; RKE does not render it for external-aws, and the CCM takes its settings from the chart.',
            field: 'cloud_provider.awsCloudProvider',
          },
        ]
      : []),
    ...csiMigrationFindings(document),
    ...rkeExternalProblems(current.object).map((problem) => ({
      severity: 'warning' as const,
      code: 'not-external-after-plan',
      message: `after the plan, ${problem}`,
    })),
  ];

  return {
    schemaVersion: 'uproot.dev/plan/v1',
    distro: 'rke',
    cluster: { name: def.name, source: def.source },
    kubernetes: { current: versions.current.raw, target: versions.target.raw },
    ccm: {
      image: ccmImage(tags.installTag),
      installTag: tags.installTag,
      targetTag: tags.targetTag,
      leaderMigrationConfig: 'default',
    },
    outcome: { type: 'migrate' },
    steps,
    findings,
    artifacts,
    decisions: stepOptions.decisions,
  };
}
