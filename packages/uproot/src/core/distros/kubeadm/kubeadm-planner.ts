/**
 * The kubeadm plan: seed 003 (Kubernetes, "Migrate Replicated Control Plane To Use Cloud Controller
 * Manager") applied to static pods, node by node: grant the migration lease, enable leader migration on the
 * KCMs with an explicit configuration, add the CCM static pod, roll the control plane to KCM N+1 with the
 * external provider, then (optionally) disable leader migration on the CCM.
 */
import { InputError } from '../../../errors/index.js';
import type { MigrationPlan, PlanFinding } from '../../model/plan-types.js';
import type { PlanOptions } from '../distro.js';
import { verifyProviderIdsStep } from '../shared/common-steps.js';
import { boolFlag, lastFlagValue } from '../../model/flag-list.js';
import { journeyHops } from '../shared/journey-steps.js';
import { PlanAssembly } from '../shared/plan-assembly.js';
import {
  ccmTags,
  csiMigrationFindings,
  migrationPlan,
  nothingToDoPlan,
  rejectForeignOptions,
  stepOptionsFor,
} from '../shared/plan-common.js';
import { checkCurrentVersion, checkInTreeExists, resolveTarget } from '../shared/version-policy.js';
import { locate } from '../shared/yaml-source.js';
import {
  kcmCloudFlags,
  planControllerHandover,
  plannedCcms,
  withCarriedDecisions,
} from '../shared/controller-handover.js';
import {
  kubeadmCloudConfigFindings,
  kubeadmFindings,
  leaderMigrationTexts,
  releasesInvolved,
} from './kubeadm-artifacts.js';
import { addKubeadmHop, type HopFiles } from './kubeadm-journey.js';
import type { KubeadmDefinition } from './kubeadm-cluster.js';
import {
  addDisableLeaderMigration,
  addEnableLeaderMigration,
  addGrantMigrationLease,
  addInstallCcm,
  addRollControlPlane,
  type KubeadmStepContext,
} from './kubeadm-plan-steps.js';
import { manifestProgression } from './manifest-files.js';
import { containers, flagsOf } from './static-pod.js';

export function planKubeadm(def: KubeadmDefinition, options: PlanOptions): MigrationPlan {
  rejectForeignOptions('kubeadm', options);
  const { kcm } = def;
  const kcmContainer = containers(kcm.pod)[kcm.containerIndex]!;
  const kcmFlags = flagsOf(kcmContainer);
  const versionLocation = locate(kcm.parsed, kcm.docIndex, [
    'spec',
    'containers',
    kcm.containerIndex,
    'image',
  ]);
  checkCurrentVersion('kubeadm', def.kubernetesVersion, versionLocation);
  const provider = lastFlagValue(kcmFlags, 'cloud-provider');
  const kcmMigration = boolFlag(kcmFlags, 'enable-leader-migration') ?? false;
  if (provider === 'external' && !kcmMigration) {
    return nothingToDoPlan(
      def,
      options,
      'kube-controller-manager runs with --cloud-provider=external and without leader migration: the cluster already uses the external provider',
    );
  }
  if (provider !== 'aws' && provider !== 'external') {
    throw new InputError(
      'UP-PLAN-NOT-AWS',
      `${kcm.file.path}: kube-controller-manager does not use the AWS cloud provider`,
      {
        location: locate(
          kcm.parsed,
          kcm.docIndex,
          ['spec', 'containers', kcm.containerIndex],
          provider ?? '(no --cloud-provider)',
        ),
        hint: 'uproot migrates control planes whose kube-controller-manager runs --cloud-provider=aws',
      },
    );
  }
  if (provider === 'aws') checkInTreeExists(def.kubernetesVersion, versionLocation, '--cloud-provider=aws');

  const versions = resolveTarget('kubeadm', def.kubernetesVersion, options.targetVersion, options);
  const tags = ccmTags('kubeadm', versions, options.ccmImageTag);
  const withNodeIpam = options.withNodeIpam ?? false;
  const baseOptions = stepOptionsFor(
    versions,
    tags,
    'explicit',
    { withNodeIpam, ccmInstall: 'static-pod' },
    'roll-control-plane',
  );
  const kcmCloud = kcmCloudFlags(kcmFlags, [], `${kcm.file.path} (kube-controller-manager command)`);
  const handover = planControllerHandover({ kcm: kcmCloud, ccms: plannedCcms(baseOptions), withNodeIpam });
  const stepOptions = withCarriedDecisions(baseOptions, handover, undefined);
  const allVersions = releasesInvolved(versions, tags, journeyHops(stepOptions));
  const config = leaderMigrationTexts(allVersions, withNodeIpam);
  const ctx: KubeadmStepContext = {
    files: manifestProgression(def, stepOptions),
    config,
    versions,
    tags,
    withNodeIpam,
    hadCcm: def.ccm !== undefined,
  };

  const plan = new PlanAssembly();
  plan.addArtifact(...config.artifacts);
  addGrantMigrationLease(plan);
  addEnableLeaderMigration(plan, ctx);
  addInstallCcm(plan, ctx);
  addRollControlPlane(plan, ctx);
  addDisableLeaderMigration(plan, ctx);
  plan.addStep(verifyProviderIdsStep('seed 002, step 6 (the same check applies)'));
  let files: HopFiles = { kcm: ctx.files.kcm.rolled, ccm: ctx.files.ccm.final };
  for (const hop of journeyHops(stepOptions)) files = addKubeadmHop(plan, def, stepOptions, files, hop);

  const findings: PlanFinding[] = [
    ...tags.findings,
    ...handover.findings,
    ...kubeadmCloudConfigFindings(kcmFlags),
    ...kubeadmFindings(def, allVersions, withNodeIpam),
    ...csiMigrationFindings(kcm.pod),
  ];
  return migrationPlan(def, stepOptions, { steps: plan.steps, findings, artifacts: plan.artifacts });
}
