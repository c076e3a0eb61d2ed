/**
 * The RKE plan's CCM chart. RKE installs no charts: where the cluster runs helm-controller uproot applies a
 * HelmChart, otherwise a person runs helm with the values file. The chart is installed with leader migration,
 * moves to the target minor with the cluster, and finally runs without leader migration.
 */
import type { Change, PlanFinding, PlanStep } from '../../model/plan-types.js';
import {
  cloudConfigMap,
  helmChartYaml,
  helmInstallCommand,
  helmUpgradeAction,
  renderCcmValues,
  renderHelmChart,
  valuesYaml,
  withImageTag,
  withoutLeaderMigration,
} from '../../ccm/chart-values.js';
import { disableLeaderMigrationStep } from '../shared/common-steps.js';
import type { JsonRecord } from '../../model/json-value.js';
import type { PlanAssembly } from '../shared/plan-assembly.js';
import { gates } from '../shared/plan-building.js';
import { ccmImage, type CcmTags } from '../shared/plan-common.js';
import { withoutBootstrap } from './rke-findings.js';

export interface RkeCcmChart {
  /** The cluster runs helm-controller (found in addons): the chart is a HelmChart uproot applies. */
  readonly helmController: boolean;
  readonly tags: CcmTags;
  readonly installValues: JsonRecord;
  /** The carried in-tree cloud config (ConfigMap kube-system/aws-cloud-config), if any. */
  readonly cloudConfig: string | undefined;
}

export function runsHelmController(rke: JsonRecord): boolean {
  const addons = typeof rke.addons === 'string' ? rke.addons : '';
  const includes = Array.isArray(rke.addons_include) ? rke.addons_include.join('\n') : '';
  return /helm-controller|helm\.cattle\.io/.test(`${addons}\n${includes}`);
}

export function rkeCcmChart(
  helmController: boolean,
  tags: CcmTags,
  carried: { readonly ccmArgs: readonly string[]; readonly cloudConfig: string | undefined },
): RkeCcmChart {
  const values = (imageTag: string): JsonRecord =>
    renderCcmValues({
      flavor: 'rke',
      imageTag,
      leaderMigration: true,
      extraArgs: carried.ccmArgs,
      cloudConfig: carried.cloudConfig !== undefined,
    });
  return {
    helmController,
    tags,
    installValues: values(tags.installTag),
    cloudConfig: carried.cloudConfig,
  };
}

/** The ConfigMap with the carried cloud config, applied before the chart so the CCM pods can mount it. */
function cloudConfigChanges(plan: PlanAssembly, chart: RkeCcmChart): Change[] {
  if (chart.cloudConfig === undefined) return [];
  const configMap = cloudConfigMap(chart.cloudConfig);
  plan.addArtifact({
    path: 'ccm/cloud-config.yaml',
    description: 'The in-tree cloud config carried into the CCM (ConfigMap kube-system/aws-cloud-config)',
    content: helmChartYaml(configMap),
  });
  return [
    {
      type: 'apply-object',
      description:
        'Create the ConfigMap kube-system/aws-cloud-config with the in-tree cloud config the CCM still reads (mounted with --cloud-config).',
      api: 'downstream',
      object: configMap,
    },
  ];
}

const FINAL_VALUES = 'ccm/values-without-leader-migration.yaml';

function chartChange(chart: RkeCcmChart, values: JsonRecord, valuesPath: string, what: string): Change {
  return chart.helmController
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
        actions: [helmUpgradeAction(valuesPath)],
      };
}

/** The values files, then the install-ccm step. */
export function addInstallCcm(plan: PlanAssembly, chart: RkeCcmChart, source: string): void {
  const { helmController, installValues, tags } = chart;
  plan.addArtifact({
    path: 'ccm/values.yaml',
    description: 'Helm values for the CCM install (seed 004, RKE)',
    content: valuesYaml(installValues),
  });
  if (helmController)
    plan.addArtifact({
      path: 'ccm/helmchart.yaml',
      description: 'The HelmChart for helm-controller',
      content: helmChartYaml(withoutBootstrap(renderHelmChart(valuesYaml(installValues)))),
    });
  plan.addStep({
    id: 'install-ccm',
    title: 'Install the aws-cloud-controller-manager with leader migration',
    description: `RKE installs no charts: ${helmController ? 'the cluster runs helm-controller, so uproot applies a HelmChart' : 'install it with helm and the values file'}. The image is pinned to ${ccmImage(tags.installTag)}; the values use RKE's node-role.kubernetes.io/controlplane selector and toleration and drop the chart's default control-plane selector (seed 004's manual DaemonSet edit).`,
    source,
    changes: [
      ...cloudConfigChanges(plan, chart),
      chartChange(chart, installValues, 'ccm/values.yaml', 'Install the CCM'),
    ],
    gates: [],
    undo: {
      description: 'Uninstall the chart.',
      changes: [
        helmController
          ? {
              type: 'manual',
              description: 'Delete the HelmChart',
              instructions: `kubectl delete helmchart -n kube-system aws-cloud-controller-manager${chart.cloudConfig === undefined ? '' : '\nkubectl delete configmap -n kube-system aws-cloud-config'}`,
            }
          : {
              type: 'manual',
              description: 'Uninstall the release',
              instructions: `helm uninstall -n kube-system aws-cloud-controller-manager${chart.cloudConfig === undefined ? '' : '\nkubectl delete configmap -n kube-system aws-cloud-config'}`,
            },
      ],
    },
    optional: false,
  });
}

export function confirmInstalledStep(source: string): PlanStep {
  return {
    id: 'wait-ccm-rollout',
    title: 'Confirm the chart is installed',
    description:
      'helm status -n kube-system aws-cloud-controller-manager shows the release deployed. Its pods may wait for the next step (seed 002: the control-plane nodes are cordoned); the DaemonSet rollout gate is checked in switch-to-external, and leader migration keeps a CCM that starts earlier safe.',
    source,
    changes: [],
    gates: [],
    undo: { description: 'Nothing to undo.', changes: [] },
    optional: false,
  };
}

/**
 * The values without leader migration and with the CCM at the target minor, then the (optional)
 * disable-leader-migration step: one CCM rollout for both. The image does not move in switch-to-external: a
 * new tag there rolls the CCM DaemonSet while `rke up` restarts the KCM holding the migration lease, so the CCM
 * leader (campaigning for the migration lease) and the KCM would go at once, and a fresh CCM starts its
 * migration elector only after winning its main lease (k8s.io/cloud-provider app/controllermanager.go,
 * leaderMigrator.MigrationReady): two handovers back to back, over 30 s without the migrated controllers
 * (the crash campaign measured 33.4 s). An older CCM is within the skew policy until then (decision 0022).
 */
export function addDisableLeaderMigration(plan: PlanAssembly, chart: RkeCcmChart, source: string): void {
  const finalValues = withoutLeaderMigration(withImageTag(chart.installValues, chart.tags.targetTag));
  const moves = chart.tags.targetTag !== chart.tags.installTag;
  plan.addArtifact({
    path: FINAL_VALUES,
    description: 'Helm values after disabling leader migration',
    content: valuesYaml(finalValues),
  });
  plan.addStep(
    disableLeaderMigrationStep({
      description: `Upgrade the chart without --enable-leader-migration=true${moves ? ` and with the CCM at ${ccmImage(chart.tags.targetTag)} (one rollout for both)` : ''}; only one controller manager runs the cloud controllers now.`,
      source,
      changes: [chartChange(chart, finalValues, FINAL_VALUES, 'Disable leader migration')],
      gates: [gates.ccmRolledOut()],
      undo: {
        description: 'Upgrade the chart with leader migration again.',
        changes: [chartChange(chart, chart.installValues, 'ccm/values.yaml', 'Re-enable leader migration')],
      },
    }),
  );
}

export function ccmInstallFinding(chart: RkeCcmChart): PlanFinding {
  return {
    severity: 'info',
    code: 'ccm-install-method',
    message: chart.helmController
      ? 'The cluster runs helm-controller (found in addons), so the CCM is installed by applying a HelmChart.'
      : 'RKE does not install charts and no helm-controller was found in addons: install the CCM with helm and ccm/values.yaml (the plan has the command).',
  };
}

/**
 * A hop of the journey moves the CCM to the release of the hop's minor: the values as after
 * disable-leader-migration (the hops come after it; only the CCM runs the cloud controllers by then) with
 * that release's tag.
 */
export function hopCcmChanges(plan: PlanAssembly, chart: RkeCcmChart, tag: string): Change[] {
  const path = `ccm/values-${tag}.yaml`;
  const values = withoutLeaderMigration(withImageTag(chart.installValues, tag));
  plan.addArtifact({ path, description: `Helm values with the CCM at ${tag}`, content: valuesYaml(values) });
  return [chartChange(chart, values, path, `Move the CCM to ${tag} with the cluster`)];
}
