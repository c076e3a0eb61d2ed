/**
 * The RKE2 plan (seed 002's RKE2 tab, seed 004's out-of-tree setup): every step as a concrete change to the
 * Rancher provisioning Cluster, merged into what the user has, with its gates and undo.
 */
import { InputError } from '../../../errors/index.js';
import { minorString } from '../../kubernetes-version/index.js';
import type { Artifact, MigrationPlan, PlanStep, StepId } from '../../plan/plan-types.js';
import type { PlanOptions, StepOptions } from '../distro.js';
import { CONTROL_PLANE_LABEL, helmChartYaml, renderHelmChart, valuesYaml } from '../shared/ccm-chart.js';
import {
  baseName,
  definitionEdit,
  stepArtifactPath,
  type DefinitionState,
} from '../shared/definition-edit.js';
import { isRecord, type JsonRecord } from '../shared/json-value.js';
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
import { locate } from '../shared/yaml-source.js';
import { externalProblems, rke2NodeKinds, selectorEntries, usesInTreeAws } from './effective-config.js';
import type { Rke2Definition } from './rke2-cluster.js';
import { finalStateFindings, rke2Findings } from './rke2-findings.js';
import { ccmValuesOf, rke2ApplyStep } from './rke2-steps.js';
import { rke2RenderFile } from './rke2-text.js';

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

export function planRke2(def: Rke2Definition, options: PlanOptions): MigrationPlan {
  rejectForeignOptions('rke2', options);
  const { parsed, docIndex, pathInDoc, cluster } = def;
  const versionLocation = locate(parsed, docIndex, [...pathInDoc, 'spec', 'kubernetesVersion']);
  checkCurrentVersion('rke2', def.kubernetesVersion, versionLocation);
  const state = classify(cluster);
  if (state === 'external') {
    return nothingToDoPlan(
      def,
      'every node already runs kubelet, kube-controller-manager and kube-apiserver with the external cloud provider and no leader migration on kube-controller-manager',
    );
  }
  if (state === 'not-aws') {
    throw new InputError(
      'UP-PLAN-NOT-AWS',
      `${def.source}: the cluster does not use the AWS cloud provider`,
      {
        location: locate(parsed, docIndex, [
          ...pathInDoc,
          'spec',
          'rkeConfig',
          'machineGlobalConfig',
          'cloud-provider-name',
        ]),
        hint: 'uproot migrates clusters from the in-tree AWS provider (cloud-provider-name: aws) to the aws-cloud-controller-manager',
      },
    );
  }
  if (state === 'in-tree')
    checkInTreeExists(def.kubernetesVersion, versionLocation, 'cloud-provider-name: aws');

  const versions = resolveTarget('rke2', def.kubernetesVersion, options.targetVersion);
  const tags = ccmTags('rke2', versions, options.ccmImageTag);
  const supervisorNaming = reliesOnSupervisorNaming(cluster);
  const keepAwsNodeNaming = options.keepAwsNodeNaming ?? supervisorNaming;
  const stepOptions: StepOptions = {
    currentVersion: versions.current.raw,
    targetVersion: versions.target.raw,
    ccmInstallTag: tags.installTag,
    ccmTargetTag: tags.targetTag,
    leaderMigrationConfig: 'default',
    decisions: { keepAwsNodeNaming, ccmInstall: 'additional-manifest', upgrade: versions.upgrade },
  };

  const file = def.file.path;
  const target = {
    api: 'management' as const,
    apiVersion: String(cluster.apiVersion),
    kind: 'Cluster',
    namespace: def.namespace,
    name: def.name,
  };
  const render = (object: unknown): string => rke2RenderFile(def, object);
  let state0: DefinitionState = { object: cluster, text: def.file.text };
  const artifacts: Artifact[] = [];
  const steps: PlanStep[] = [];

  const edit = (id: StepId, description: string, undoDescription: string) => {
    const result = definitionEdit({
      file,
      target,
      before: state0,
      afterObject: rke2ApplyStep(id, state0.object, stepOptions),
      render,
      description,
      undoDescription,
    });
    if (result) {
      state0 = result.after;
      artifacts.push({
        path: stepArtifactPath(steps.length, id, baseName(file)),
        description: `${file} after step ${id}`,
        content: result.after.text,
      });
    }
    return result;
  };

  const grant = kcmLeaseGrantStep();
  steps.push(grant.step);

  const enable = edit(
    'enable-leader-migration',
    'Add enable-leader-migration to kube-controller-manager-arg for control-plane machines (machineSelectorConfig), keeping cloud-provider-name: aws.',
    'Remove enable-leader-migration from kube-controller-manager-arg again.',
  );
  steps.push({
    id: 'enable-leader-migration',
    title: 'Enable leader migration on kube-controller-manager',
    description:
      'Rancher rolls the control-plane nodes; each KCM (still in-tree AWS) then runs route, service and cloud-node-lifecycle under the migration lease. From 1.22 the default configuration needs no file.',
    source: `${SEED_002}, step 1`,
    changes: enable ? [enable.change] : [],
    gates: [
      gates.clusterRolledOut(),
      gates.controlPlaneFlags('aws', true),
      gates.migrationLeaseHeld('kube-controller-manager'),
    ],
    undo: {
      description: 'Edit the Cluster back; Rancher rolls the control plane again.',
      changes: enable ? [enable.undo] : [],
    },
    optional: false,
  });

  steps.push(
    cordonStep(
      CP_SELECTOR,
      `kubectl cordon -l "${CP_SELECTOR}", so the CCM's chart installs and its pods start on nodes only as they are updated to the external provider.`,
      `${SEED_002}, step 2`,
    ),
  );

  const install = edit(
    'install-ccm',
    `Append the aws-cloud-controller-manager HelmChart to spec.rkeConfig.additionalManifest (your other manifests are kept), image pinned to ${tags.installTag}, --enable-leader-migration=true.`,
    'Remove the HelmChart from additionalManifest again.',
  );
  const installValues = ccmValuesOf(state0.object);
  if (installValues) {
    artifacts.push({
      path: 'ccm/values.yaml',
      description: 'Helm values of the CCM at install',
      content: valuesYaml(installValues),
    });
    artifacts.push({
      path: 'ccm/helmchart.yaml',
      description: 'The HelmChart as added to additionalManifest',
      content: helmChartYaml(renderHelmChart(valuesYaml(installValues))),
    });
  }
  steps.push({
    id: 'install-ccm',
    title: 'Install the aws-cloud-controller-manager with leader migration',
    description: `Rancher delivers additionalManifest to the control-plane nodes and RKE2's helm-controller installs the chart. The image is pinned to ${ccmImage(tags.installTag)} (the chart's default v1.35.0 would be newer than the API server and name its controllers differently from the ${minorString(versions.current)} KCMs).`,
    source: `${SEED_002}, step 3; ${SEED_004}, step 4 and Helm values`,
    changes: install ? [install.change] : [],
    gates: [],
    undo: {
      description: 'Remove the HelmChart from additionalManifest.',
      changes: install ? [install.undo] : [],
    },
    optional: false,
  });

  steps.push({
    id: 'wait-ccm-rollout',
    title: 'Wait until Rancher has delivered the chart',
    description:
      "The chart's install Job cannot schedule on cordoned control-plane nodes, so the DaemonSet appears once the next step's rollout updates and uncordons them; the DaemonSet rollout gate is therefore checked in switch-to-external. Until then the KCMs keep the cloud controllers under the migration lease.",
    source: `${SEED_002}, step 4`,
    changes: [],
    gates: [gates.clusterRolledOut()],
    undo: { description: 'Nothing to undo.', changes: [] },
    optional: false,
  });

  const upgradeText = versions.upgrade
    ? ` and spec.kubernetesVersion ${versions.target.raw} (the CCM image moves to ${tags.targetTag})`
    : '';
  const switched = edit(
    'switch-to-external',
    keepAwsNodeNaming
      ? `Override the cloud provider per role (etcd, control-plane, worker: kubelet-arg cloud-provider=external; control-plane also kube-apiserver-arg, kube-controller-manager-arg cloud-provider=external and disable-cloud-controller: true), keep cloud-provider-name: aws for node naming, remove enable-leader-migration${upgradeText}.`
      : `Set cloud-provider-name: external and remove enable-leader-migration from kube-controller-manager-arg${upgradeText}.`,
    'Edit the Cluster back to the in-tree provider with leader migration (only possible while the version is below 1.27).',
  );
  steps.push({
    id: 'switch-to-external',
    title: 'Switch the cluster to the external cloud provider',
    description:
      'Rancher updates the nodes one by one; as each control-plane node restarts, its KCM stops running the cloud controllers and the CCM pods take the migration lease. uproot uncordons the control-plane nodes afterwards (a no-op where Rancher already did); leader migration keeps a CCM that starts early safe.',
    source: `${SEED_002}, step 5; ${SEED_004}, step 2`,
    changes: [
      ...(switched ? [switched.change] : []),
      {
        type: 'uncordon-nodes',
        description: `Uncordon nodes matching ${CP_SELECTOR}.`,
        selector: CP_SELECTOR,
      },
    ],
    gates: [gates.clusterRolledOut(), gates.controlPlaneFlags('external', false), ...handOverGates()],
    undo: {
      description: versions.upgrade
        ? 'Rolling back re-enables the in-tree provider and leader migration on the KCMs; it is impossible once the cluster runs 1.27 (no in-tree provider there).'
        : 'Edit the Cluster back: the KCMs return to the in-tree provider with leader migration and take the migration lease back from the CCM (seed 003, rollback).',
      changes: switched ? [switched.undo] : [],
    },
    optional: false,
  });

  const disabled = edit(
    'disable-leader-migration',
    'Remove --enable-leader-migration=true from the CCM args in the HelmChart values.',
    'Add --enable-leader-migration=true back to the CCM args.',
  );
  steps.push({
    id: 'disable-leader-migration',
    title: 'Disable leader migration on the CCM (optional)',
    description:
      'Only one controller manager runs the cloud controllers now; the migration lease is no longer needed. Keeping it enabled is harmless and makes a rollback simpler.',
    source: `${SEED_002}, step 5 (last part)`,
    changes: disabled ? [disabled.change] : [],
    // Every edit of the Cluster is rolled out by Rancher; wait for it, or the migration reports done while
    // control-plane components are still restarting.
    gates: [gates.clusterRolledOut(), gates.ccmRolledOut()],
    undo: { description: 'Re-enable leader migration on the CCM.', changes: disabled ? [disabled.undo] : [] },
    optional: true,
  });

  steps.push(verifyProviderIdsStep(`${SEED_002}, step 6`));

  artifacts.push(grant.artifact);

  const findings = [
    ...tags.findings,
    ...rke2Findings(def, {
      keepAwsNodeNaming,
      supervisorNaming,
      flagGiven: options.keepAwsNodeNaming !== undefined,
      targetMinor: versions.target.minor,
      installTag: tags.installTag,
    }),
    ...csiMigrationFindings(cluster),
    ...finalStateFindings(state0.object),
  ];
  return {
    schemaVersion: 'uproot.dev/plan/v1',
    distro: 'rke2',
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
