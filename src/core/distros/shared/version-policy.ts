/**
 * Which versions uproot will plan for (seed 002, seed 003, leader-migration reference §0): leader migration
 * exists from 1.21 (alpha, behind a feature gate, and only with an explicit configuration file), has a
 * default configuration from 1.22, and the in-tree AWS provider is gone in 1.27, so the migration must happen
 * before or with the upgrade to 1.27, never skipped over.
 */
import { InputError, type ErrorLocation } from '../../../errors/index.js';
import {
  atLeast,
  compareVersions,
  minorString,
  parseKubernetesVersion,
  type KubernetesVersion,
} from '../../kubernetes-version/index.js';
import type { Distro } from '../../plan/plan-types.js';

export interface VersionPlan {
  readonly current: KubernetesVersion;
  readonly target: KubernetesVersion;
  /** True when the plan changes the cluster's Kubernetes version (minor or patch). */
  readonly upgrade: boolean;
}

/** How each distribution spells a release in its cluster definition. */
const RELEASE_FORMAT: Readonly<Record<Distro, { re: RegExp; example: string; field: string }>> = {
  rke2: { re: /^v\d+\.\d+\.\d+\+rke2r\d+$/, example: 'v1.27.16+rke2r2', field: 'spec.kubernetesVersion' },
  rke: {
    re: /^v\d+\.\d+\.\d+-rancher\d+(-\d+)?$/,
    example: 'v1.27.16-rancher1-1',
    field: 'kubernetes_version',
  },
  kubeadm: { re: /^v\d+\.\d+\.\d+$/, example: 'v1.27.16', field: 'the kube-controller-manager image tag' },
};

/** Refuses clusters too old for leader migration; `where` locates the version field for the message. */
export function checkCurrentVersion(distro: Distro, current: KubernetesVersion, where: ErrorLocation): void {
  if (current.major !== 1 || !atLeast(current, 1, 21)) {
    throw new InputError(
      'UP-PLAN-VERSION-TOO-OLD',
      `Kubernetes ${current.raw} is too old for leader migration`,
      {
        location: { ...where, value: current.raw },
        hint: 'leader migration needs Kubernetes 1.21 or later (1.22 or later for the default configuration); upgrade the cluster with the in-tree provider first',
      },
    );
  }
  if (distro !== 'kubeadm' && !atLeast(current, 1, 22)) {
    throw new InputError(
      'UP-PLAN-VERSION-NEEDS-CONFIG-FILE',
      `Kubernetes ${current.raw} has no default leader-migration configuration, and ${distro === 'rke2' ? 'RKE2 through Rancher' : 'RKE'} cannot give the CCM chart an explicit one`,
      {
        location: { ...where, value: current.raw },
        hint: 'upgrade the cluster to 1.22 (still with the in-tree provider) and plan again',
      },
    );
  }
}

/** Refuses a cluster definition that says in-tree AWS on a release that no longer has it. */
export function checkInTreeExists(current: KubernetesVersion, where: ErrorLocation, setting: string): void {
  if (atLeast(current, 1, 27)) {
    throw new InputError(
      'UP-PLAN-VERSION-NO-IN-TREE',
      `the cluster definition selects the in-tree AWS provider (${setting}) on Kubernetes ${current.raw}, which no longer has it`,
      {
        location: { ...where, value: current.raw },
        hint: 'the in-tree AWS provider was removed in 1.27; check that this file matches the running cluster (a cluster that runs at 1.27+ is already external)',
      },
    );
  }
}

/**
 * Resolves `--target-version`: default the current version (a same-version migration, as the Rancher guide
 * does); at most the next minor; never past 1.27 from a cluster below it.
 */
export function resolveTarget(
  distro: Distro,
  current: KubernetesVersion,
  targetRaw: string | undefined,
): VersionPlan {
  if (targetRaw === undefined || targetRaw.trim() === '') return { current, target: current, upgrade: false };
  const target = parseKubernetesVersion(targetRaw, '--target-version');
  const where: ErrorLocation = { field: '--target-version', value: targetRaw };
  const sameMinor = target.major === current.major && target.minor === current.minor;
  const hasPatch = /^v?\d+\.\d+\.\d+/.test(targetRaw.trim());
  if (sameMinor && (!hasPatch || target.raw === current.raw || compareVersions(target, current) === 0)) {
    return { current, target: current, upgrade: false };
  }
  if (compareVersions(target, current) < 0) {
    throw new InputError(
      'UP-PLAN-TARGET-DOWNGRADE',
      `target ${target.raw} is older than the cluster's ${current.raw}`,
      {
        location: where,
        hint: `give a target of ${minorString(current)} (same version) or the next minor`,
      },
    );
  }
  if (!atLeast(current, 1, 27) && atLeast(target, 1, 28)) {
    throw new InputError(
      'UP-PLAN-TARGET-SKIPS-MIGRATION',
      `target ${target.raw} skips the migration: the in-tree AWS provider is gone in 1.27, so the cluster must move to the external provider before or with the upgrade to 1.27`,
      {
        location: where,
        hint: `target 1.27 first${current.minor < 26 ? ` (one minor at a time: ${current.major}.${current.minor + 1} next)` : ''}, migrate, then upgrade further`,
      },
    );
  }
  if (target.major !== current.major || target.minor > current.minor + 1) {
    throw new InputError(
      'UP-PLAN-TARGET-SKIPS-MINOR',
      `target ${target.raw} is more than one minor after ${current.raw}`,
      {
        location: where,
        hint: `Kubernetes upgrades one minor at a time: target ${current.major}.${current.minor + 1}`,
      },
    );
  }
  const format = RELEASE_FORMAT[distro];
  if (!format.re.test(targetRaw.trim())) {
    throw new InputError(
      'UP-PLAN-TARGET-FORMAT',
      `target "${targetRaw}" is not a ${distro} release name, and it is written into ${format.field}`,
      { location: where, hint: `give the full release, e.g. ${format.example}` },
    );
  }
  return { current, target, upgrade: true };
}
