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
} from '../../model/kubernetes-version.js';
import type { Distro } from '../../model/plan-types.js';
import {
  judgeRelease,
  KNOWN_RELEASES,
  LAST_SUPPORTED_MINOR,
  newestKnownMinor,
  newestRelease,
} from './releases.js';

export interface VersionPlan {
  readonly current: KubernetesVersion;
  /** Where the migration itself leaves the cluster: the current version, or the next minor (seed 002). */
  readonly target: KubernetesVersion;
  /** True when the migration changes the cluster's Kubernetes version (minor or patch). */
  readonly upgrade: boolean;
  /**
   * The upgrades after the migration, one minor each, to the final target (their `raw` is the distribution's
   * release name). Empty unless the target lies beyond the next minor.
   */
  readonly hops: readonly KubernetesVersion[];
}

/** Where the whole plan leaves the cluster. */
export function finalVersion(versions: VersionPlan): KubernetesVersion {
  return versions.hops.at(-1) ?? versions.target;
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

/** True when `raw` is written as the distribution's release name (what a definition can hold as is). */
export function isReleaseName(distro: Distro, raw: string): boolean {
  return RELEASE_FORMAT[distro].re.test(raw.trim());
}

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
 * does). A target in the next minor is reached by the migration itself (seed 002: "If upgrading the
 * Kubernetes version, set the Kubernetes version as well"); a later one by hops of one minor each after it,
 * because every distribution upgrades one minor at a time (Kubernetes version-skew policy). A bare minor
 * (`1.33`) means the newest release uproot knows of that minor (src/core/distros/shared/releases.ts); a full
 * release name must be one the table knows, unless `allowUnknownRelease` (`--allow-unknown-release`).
 */
export function resolveTarget(
  distro: Distro,
  current: KubernetesVersion,
  targetRaw: string | undefined,
  options: { readonly allowUnknownRelease?: boolean } = {},
): VersionPlan {
  const same: VersionPlan = { current, target: current, upgrade: false, hops: [] };
  if (targetRaw === undefined || targetRaw.trim() === '') return same;
  const parsed = parseKubernetesVersion(targetRaw, '--target-version');
  const where: ErrorLocation = { field: '--target-version', value: targetRaw };
  const sameMinor = parsed.major === current.major && parsed.minor === current.minor;
  const hasPatch = /^v?\d+\.\d+\.\d+/.test(targetRaw.trim());
  if (sameMinor && (!hasPatch || parsed.raw === current.raw || compareVersions(parsed, current) === 0)) {
    return same;
  }
  if (compareVersions(parsed, current) < 0) {
    throw new InputError(
      'UP-PLAN-TARGET-DOWNGRADE',
      `target ${parsed.raw} is older than the cluster's ${current.raw}`,
      {
        location: where,
        hint: `give a target of ${minorString(current)} (same version) or later: Kubernetes does not downgrade`,
      },
    );
  }
  checkSupported(distro, parsed, where);
  const target = hasPatch
    ? checkExists(distro, checkFormat(distro, targetRaw, parsed, where), where, options.allowUnknownRelease)
    : knownRelease(distro, parsed, where);
  if (target.minor <= current.minor + 1) return { current, target, upgrade: true, hops: [] };
  // The migration lands on the next minor; every later minor is a hop of its own.
  const through = (minor: number): KubernetesVersion =>
    knownRelease(distro, { major: current.major, minor }, where, target);
  const hops: KubernetesVersion[] = [];
  for (let minor = current.minor + 2; minor < target.minor; minor++) hops.push(through(minor));
  hops.push(target);
  return { current, target: through(current.minor + 1), upgrade: true, hops };
}

/** RKE1 is end of life: no release of it runs a minor after its last one. */
function checkSupported(distro: Distro, target: KubernetesVersion, where: ErrorLocation): void {
  const last = LAST_SUPPORTED_MINOR[distro];
  if (last === undefined || target.major !== 1 || target.minor <= last) return;
  throw new InputError(
    'UP-PLAN-TARGET-UNSUPPORTED',
    `RKE runs Kubernetes up to 1.${last} (RKE v1.7, its last line; RKE1 reached end of life on 31 July 2025), so it cannot reach ${target.raw}`,
    {
      location: where,
      hint: `target 1.${last} or earlier with RKE; to go further, move the cluster to RKE2 first (Rancher's RKE1-to-RKE2 migration), then plan the rest of the journey there`,
    },
  );
}

function checkFormat(
  distro: Distro,
  raw: string,
  parsed: KubernetesVersion,
  where: ErrorLocation,
): KubernetesVersion {
  const format = RELEASE_FORMAT[distro];
  if (format.re.test(raw.trim())) return parsed;
  const newest = newestRelease(distro, parsed);
  throw new InputError(
    'UP-PLAN-TARGET-FORMAT',
    `target "${raw}" is not a ${distro} release name, and it is written into ${format.field}`,
    {
      location: where,
      hint: `give the full release, e.g. ${format.example}${newest ? `, or ${minorString(parsed)} for the newest release uproot knows of that minor (${newest})` : ''}`,
    },
  );
}

/**
 * Refuses a release name the table does not know (`v1.27.99+rke2r1`: written into the cluster definition, it
 * would stall the rollout), with the newest known release as the fix; `allow` lets a brand-new one through.
 */
function checkExists(
  distro: Distro,
  target: KubernetesVersion,
  where: ErrorLocation,
  allow: boolean | undefined,
): KubernetesVersion {
  const verdict = judgeRelease(distro, target);
  if (verdict.type === 'known' || allow) return target;
  const table = KNOWN_RELEASES[distro];
  const escape = `if ${target.raw} is a release newer than uproot's table (${table.source}), pass --allow-unknown-release`;
  throw new InputError(
    'UP-PLAN-TARGET-UNKNOWN-RELEASE',
    verdict.type === 'newer-than-known'
      ? `${distro} release ${target.raw} is newer than the newest uproot knows of ${minorString(target)} (${verdict.newest})`
      : `uproot knows no ${distro} release of ${minorString(target)}, so not ${target.raw}`,
    {
      location: where,
      hint:
        verdict.type === 'newer-than-known'
          ? `use --target-version ${verdict.newest} (or ${minorString(target)}); ${escape}`
          : `the newest ${distro} release uproot knows is ${verdict.newest}: use --target-version ${verdict.newest} or earlier; ${escape}`,
    },
  );
}

/** The newest known release of a minor; `final` is the target the journey is for (for the message). */
function knownRelease(
  distro: Distro,
  version: Pick<KubernetesVersion, 'major' | 'minor'>,
  where: ErrorLocation,
  final?: KubernetesVersion,
): KubernetesVersion {
  const name = newestRelease(distro, version);
  if (name) return parseKubernetesVersion(name, '--target-version');
  const minor = `${version.major}.${version.minor}`;
  const table = KNOWN_RELEASES[distro];
  throw new InputError(
    'UP-PLAN-TARGET-UNKNOWN',
    final
      ? `the journey to ${final.raw} passes through ${minor}, and uproot knows no ${distro} release of ${minor}`
      : `uproot knows no ${distro} release of ${minor} to resolve "${String(where.value)}" to`,
    {
      location: where,
      // No made-up release name as the fix: it would be refused in turn (issue 25).
      hint: `uproot knows ${distro} releases of 1.${Math.min(...Object.keys(table.newest).map(Number))} to 1.${newestKnownMinor(distro)} (${table.source}): target 1.${newestKnownMinor(distro)} (${newestRelease(distro, { major: 1, minor: newestKnownMinor(distro) }) ?? ''}) or earlier${final ? '' : `; if ${minor} has been released since, give its full release name with --allow-unknown-release`}`,
    },
  );
}
