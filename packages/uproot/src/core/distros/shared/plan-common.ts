/**
 * Pieces of a plan every distribution builds the same way: CCM tags, step options, the plan itself (or the
 * nothing-to-do plan), shared findings.
 */
import { InputError, type ErrorLocation } from '../../../errors/index.js';
import { defaultConfigIsSafe } from '../../leader-migration/index.js';
import { CCM_IMAGE_REPOSITORY, ccmImageTagFor, ccmTagMinor } from '../../ccm/index.js';
import type { KubernetesVersion } from '../../model/kubernetes-version.js';
import {
  upgradeStepId,
  type Artifact,
  type Distro,
  type MigrationPlan,
  type PlanDecisions,
  type PlanFinding,
  type PlanStep,
  type StepId,
} from '../../model/plan-types.js';
import type { ClusterDefinition, PlannedUpgrade, PlanOptions, StepOptions } from '../distro.js';
import { finalVersion, resolveTarget, type VersionPlan } from './version-policy.js';

export interface CcmTags {
  readonly installTag: string;
  readonly targetTag: string;
  /** The two managers' default configurations name different controllers: an explicit file is needed. */
  readonly explicitConfigNeeded: boolean;
  readonly findings: PlanFinding[];
}

/**
 * The CCM image per phase: the release of the cluster's minor at install, of the target minor once the
 * cluster is upgraded (a CCM must not be newer than the API server). `--ccm-image-tag` overrides both.
 */
export function ccmTags(distro: Distro, versions: VersionPlan, override: string | undefined): CcmTags {
  if (override === undefined) {
    return {
      installTag: ccmImageTagFor(versions.current),
      targetTag: ccmImageTagFor(versions.target),
      explicitConfigNeeded: false,
      findings: [],
    };
  }
  const minor = ccmTagMinor(override);
  if (minor === undefined) {
    throw new InputError('UP-PLAN-CCM-TAG', `"${override}" is not a cloud-provider-aws release tag`, {
      location: { field: '--ccm-image-tag', value: override },
      hint: 'give a tag such as v1.26.11 (leave the flag out to use the release uproot pins for the cluster)',
    });
  }
  const ccm: KubernetesVersion = { major: 1, minor, patch: 0, raw: override };
  const explicitConfigNeeded = !defaultConfigIsSafe(versions.current, ccm);
  if (explicitConfigNeeded && distro !== 'kubeadm') {
    throw new InputError(
      'UP-PLAN-CCM-TAG-UNSAFE',
      `a CCM ${override} and the cluster's ${versions.current.raw} controller managers name the cloud controllers differently (the 1.28 rename), so the default leader-migration configuration would run the service and route controllers in both`,
      {
        location: { field: '--ccm-image-tag', value: override },
        hint: `use a CCM release before v1.28 (uproot pins ${ccmImageTagFor(versions.current)}), or leave the flag out`,
      },
    );
  }
  const findings: PlanFinding[] = [];
  if (minor > versions.target.minor) {
    findings.push({
      severity: 'warning',
      code: 'ccm-newer-than-apiserver',
      message: `the CCM ${override} is newer than the cluster's Kubernetes ${versions.target.raw}; the CCM's minor should not be newer than the API server's`,
      field: '--ccm-image-tag',
      hint: `use ${ccmImageTagFor(versions.target)}`,
    });
  }
  return { installTag: override, targetTag: override, explicitConfigNeeded, findings };
}

export function ccmImage(tag: string): string {
  return `${CCM_IMAGE_REPOSITORY}:${tag}`;
}

/**
 * What every step transformation of this plan needs: versions, CCM tags, and the planner's decisions.
 * `migrationStep` is the step that moves the cluster to `versions.target` when it upgrades; each later hop
 * pins the CCM release of its own minor (`--ccm-image-tag` applies to the migration only).
 */
export function stepOptionsFor(
  versions: VersionPlan,
  tags: CcmTags,
  leaderMigrationConfig: StepOptions['leaderMigrationConfig'],
  decisions: Omit<PlanDecisions, 'upgrade'>,
  migrationStep: StepId,
): StepOptions {
  const upgrades: PlannedUpgrade[] = versions.upgrade
    ? [
        { step: migrationStep, version: versions.target.raw, ccmTag: tags.targetTag },
        ...versions.hops.map((hop) => ({
          step: upgradeStepId(hop),
          version: hop.raw,
          ccmTag: ccmImageTagFor(hop),
        })),
      ]
    : [];
  return {
    currentVersion: versions.current.raw,
    targetVersion: versions.target.raw,
    ccmInstallTag: tags.installTag,
    ccmTargetTag: tags.targetTag,
    leaderMigrationConfig,
    decisions: { ...decisions, upgrade: versions.upgrade },
    upgrades,
  };
}

/** The migration plan: its header comes from the step options, so it says exactly what the steps were built with. */
export function migrationPlan(
  definition: ClusterDefinition,
  options: StepOptions,
  parts: { readonly steps: PlanStep[]; readonly findings: PlanFinding[]; readonly artifacts: Artifact[] },
): MigrationPlan {
  const last = options.upgrades.at(-1);
  return {
    schemaVersion: 'uproot.dev/plan/v1',
    distro: definition.distro,
    cluster: { name: definition.name, source: definition.source },
    kubernetes: {
      current: options.currentVersion,
      target: last?.version ?? options.targetVersion,
      ...(options.upgrades.length > 0 ? { upgrades: [...options.upgrades] } : {}),
    },
    ccm: {
      image: ccmImage(options.ccmInstallTag),
      installTag: options.ccmInstallTag,
      targetTag: last?.ccmTag ?? options.ccmTargetTag,
      leaderMigrationConfig: options.leaderMigrationConfig,
    },
    outcome: { type: 'migrate' },
    steps: parts.steps,
    findings: parts.findings,
    artifacts: parts.artifacts,
    decisions: options.decisions,
  };
}

/**
 * The plan for a cluster that already runs the external provider: no steps, exit 0. A `--target-version`
 * other than the current one is judged by the same rules as for a migration, then refused plainly: uproot
 * upgrades only as part of a migration, and saying "nothing to do" would hide that the target was ignored.
 */
export function nothingToDoPlan(
  definition: ClusterDefinition,
  options: Pick<PlanOptions, 'targetVersion' | 'allowUnknownRelease'>,
  reason: string,
  findings: PlanFinding[] = [],
): MigrationPlan {
  refuseUpgradeOfExternal(definition, options, reason);
  const tag = ccmImageTagFor(definition.kubernetesVersion);
  return {
    schemaVersion: 'uproot.dev/plan/v1',
    distro: definition.distro,
    cluster: { name: definition.name, source: definition.source },
    kubernetes: { current: definition.kubernetesVersion.raw, target: definition.kubernetesVersion.raw },
    ccm: { image: ccmImage(tag), installTag: tag, targetTag: tag, leaderMigrationConfig: 'default' },
    outcome: { type: 'nothing-to-do', reason },
    steps: [],
    findings,
    artifacts: [],
  };
}

const UPGRADE_HOW: Readonly<Record<Distro, string>> = {
  rke2: "set spec.kubernetesVersion of the provisioning Cluster (Rancher's cluster upgrade)",
  rke: 'set kubernetes_version in cluster.yml and run `rke up`',
  kubeadm:
    '`kubeadm upgrade apply` on the first control-plane node, then `kubeadm upgrade node` on the others',
};

function refuseUpgradeOfExternal(
  definition: ClusterDefinition,
  options: Pick<PlanOptions, 'targetVersion' | 'allowUnknownRelease'>,
  reason: string,
): void {
  const where: ErrorLocation = { field: '--target-version', value: options.targetVersion };
  const versions = resolveTarget(
    definition.distro,
    definition.kubernetesVersion,
    options.targetVersion,
    options,
  );
  if (!versions.upgrade) return;
  const releases = [versions.target, ...versions.hops].map((v) => v.raw);
  throw new InputError(
    'UP-PLAN-EXTERNAL-UPGRADE',
    `${definition.source}: nothing to migrate (${reason}), and uproot upgrades Kubernetes only as part of a migration, so it will not take the cluster to ${finalVersion(versions).raw}`,
    {
      location: where,
      hint: `upgrade it with the distribution, one minor at a time (${releases.join(' → ')}): ${UPGRADE_HOW[definition.distro]}; leave --target-version out to confirm that nothing needs migrating`,
    },
  );
}

/**
 * RKE2 and RKE: the definition names neither the in-tree AWS provider nor the external one. The caller names
 * the code, so docs/errors.md lists the planner as where it is raised.
 */
export function notAwsError(
  code: 'UP-PLAN-NOT-AWS',
  definition: ClusterDefinition,
  location: ErrorLocation,
  setting: string,
): InputError {
  return new InputError(code, `${definition.source}: the cluster does not use the AWS cloud provider`, {
    location,
    hint: `uproot migrates clusters from the in-tree AWS provider (${setting}) to the aws-cloud-controller-manager`,
  });
}

/** Seed 004: clusters that kept in-tree EBS volumes with CSIMigrationAWS=false lose them with the external provider. */
export function csiMigrationFindings(definition: unknown): PlanFinding[] {
  const text = JSON.stringify(definition);
  if (!/CSIMigrationAWS\s*=\s*false/i.test(text)) return [];
  return [
    {
      severity: 'warning',
      code: 'ebs-csi-migration-disabled',
      message:
        'the cluster sets CSIMigrationAWS=false to keep the in-tree EBS volume plugin, which does not work with the external provider (and is removed in 1.27)',
      hint: 'install the aws-ebs-csi-driver and remove the CSIMigrationAWS=false feature gate before switching to the external provider',
    },
  ];
}

/** Flags that only one distribution understands are contradictions elsewhere. */
export function rejectForeignOptions(distro: Distro, options: PlanOptions): void {
  const foreign: [keyof PlanOptions, string, Distro][] = [
    ['keepAwsNodeNaming', '--[no-]keep-aws-node-naming', 'rke2'],
    ['useInstanceMetadataHostname', '--[no-]use-instance-metadata-hostname', 'rke'],
  ];
  for (const [key, flag, owner] of foreign) {
    if (owner !== distro && options[key] !== undefined && options[key] !== false) {
      throw new InputError(
        'UP-PLAN-FLAG-DISTRO',
        `${flag} applies to ${owner} clusters, and this is a ${distro} cluster`,
        {
          location: { field: flag, value: options[key] },
          hint: `leave ${flag} out for ${distro}`,
        },
      );
    }
  }
}
