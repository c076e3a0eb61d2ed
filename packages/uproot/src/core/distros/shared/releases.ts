/**
 * The releases uproot knows per distribution: the newest patch of each Kubernetes minor, in the form the
 * distribution writes into its cluster definition. Used to resolve a bare minor (`--target-version 1.33`)
 * and to name the intermediate hops of an upgrade journey, which the user does not name.
 *
 * One table, one place to update. Sources (newest non-rc release per minor at the time of writing):
 * - RKE2: rancher/rke2 release tags (`git tag -l 'v1.33.*'`, snapshot of 2026-08).
 * - RKE (RKE1): rancher/kontainer-driver-metadata `pkg/rke/k8s_rke_system_images.go`, branch dev-v2.10
 *   (2024-10-21), the last KDM line RKE v1.7 reads (rancher/rke release/v1.7, PR #3712 "[v1.31] vendor KDM
 *   data"). RKE1 reached end of life on 31 July 2025; no minor after 1.31 exists in the RKE sources.
 * - kubeadm: upstream Kubernetes patch releases, as tagged in kubernetes/apiserver (`kubernetes-1.33.13`).
 *
 * Refresh: for each distribution, read the newest non-rc release of every minor from the source above and
 * update its row (add a row for a new minor), then run the planner tests. A release newer than its row is
 * refused as unknown (`judgeRelease`) until the table knows it; `--allow-unknown-release` lets a brand-new
 * release through in the meantime.
 */
import type { KubernetesVersion } from '../../model/kubernetes-version.js';
import type { Distro } from '../../model/plan-types.js';

export interface ReleaseTable {
  /** Minor → the newest release name of that minor. */
  readonly newest: Readonly<Record<number, string>>;
  /** Where the names come from, for messages. */
  readonly source: string;
}

export const KNOWN_RELEASES: Readonly<Record<Distro, ReleaseTable>> = {
  rke2: {
    source: 'rancher/rke2 release tags',
    newest: {
      21: 'v1.21.14+rke2r1',
      22: 'v1.22.17+rke2r1',
      23: 'v1.23.17+rke2r1',
      24: 'v1.24.17+rke2r1',
      25: 'v1.25.16+rke2r2',
      26: 'v1.26.15+rke2r1',
      27: 'v1.27.16+rke2r2',
      28: 'v1.28.15+rke2r1',
      29: 'v1.29.15+rke2r1',
      30: 'v1.30.14+rke2r4',
      31: 'v1.31.14+rke2r2',
      32: 'v1.32.13+rke2r2',
      33: 'v1.33.13+rke2r2',
      34: 'v1.34.10+rke2r1',
      35: 'v1.35.7+rke2r1',
      36: 'v1.36.3+rke2r1',
    },
  },
  rke: {
    source: 'rancher/kontainer-driver-metadata (dev-v2.10, read by RKE v1.7)',
    newest: {
      21: 'v1.21.14-rancher1-1',
      22: 'v1.22.17-rancher1-2',
      23: 'v1.23.16-rancher2-3',
      24: 'v1.24.17-rancher1-1',
      25: 'v1.25.16-rancher2-3',
      26: 'v1.26.15-rancher1-1',
      27: 'v1.27.16-rancher1-1',
      28: 'v1.28.14-rancher1-1',
      29: 'v1.29.9-rancher1-1',
      30: 'v1.30.5-rancher1-1',
      31: 'v1.31.1-rancher1-1',
    },
  },
  kubeadm: {
    source: 'upstream Kubernetes release tags',
    newest: {
      21: 'v1.21.14',
      22: 'v1.22.17',
      23: 'v1.23.17',
      24: 'v1.24.17',
      25: 'v1.25.16',
      26: 'v1.26.15',
      27: 'v1.27.16',
      28: 'v1.28.15',
      29: 'v1.29.15',
      30: 'v1.30.14',
      31: 'v1.31.14',
      32: 'v1.32.13',
      33: 'v1.33.13',
      34: 'v1.34.10',
      35: 'v1.35.7',
      36: 'v1.36.3',
    },
  },
};

/** The newest release uproot knows for a minor, or undefined. */
export function newestRelease(
  distro: Distro,
  version: Pick<KubernetesVersion, 'major' | 'minor'>,
): string | undefined {
  return version.major === 1 ? KNOWN_RELEASES[distro].newest[version.minor] : undefined;
}

/** The newest minor a distribution supports at all, where it has a last one (RKE1 is end of life). */
export const LAST_SUPPORTED_MINOR: Readonly<Partial<Record<Distro, number>>> = { rke: 31 };

/** The newest minor in the table. */
export function newestKnownMinor(distro: Distro): number {
  return Math.max(...Object.keys(KNOWN_RELEASES[distro].newest).map(Number));
}

/**
 * How a release shows itself in a running cluster: the kubelets' `status.nodeInfo.kubeletVersion`, the API
 * server's `/version` gitVersion, and the tag of the control-plane static pods' images (undefined where the
 * control plane runs without pods, as on RKE).
 */
export interface RunningForms {
  readonly kubeletVersion: string;
  readonly gitVersion: string;
  readonly imageTag?: string;
}

/**
 * RKE2 builds report the release as is (`v1.27.16+rke2r1`) and tag rancher/hardened-kubernetes
 * `v1.27.16-rke2r1-build…` (rancher/rke2 Dockerfile, KUBERNETES_IMAGE_TAG); RKE runs upstream binaries in
 * rancher/hyperkube containers (no static pods), reporting `v1.27.16`; kubeadm's images are upstream's.
 */
export function runningForms(distro: Distro, release: string): RunningForms {
  const base = /^v?(\d+\.\d+\.\d+)/.exec(release.trim())?.[1];
  const plain = base ? `v${base}` : release;
  switch (distro) {
    case 'rke2':
      return { kubeletVersion: release, gitVersion: release, imageTag: release.replace('+', '-') };
    case 'rke':
      return { kubeletVersion: plain, gitVersion: plain };
    case 'kubeadm':
      return { kubeletVersion: plain, gitVersion: plain, imageTag: plain };
  }
}

/** What the table says of a release name: known (at most the newest of its minor), or newer than known. */
export type ReleaseVerdict =
  | { readonly type: 'known' }
  /** Its minor is in the table, but the release is newer than the newest known of that minor. */
  | { readonly type: 'newer-than-known'; readonly newest: string }
  /** Its minor is past the table's newest (or before its oldest). */
  | { readonly type: 'unknown-minor'; readonly newest: string };

/**
 * Judges a release name against the table. The table lists the newest release of each minor, so anything
 * at or below it (patch, then the distribution's build revision: `+rke2rN`, `-rancherN-M`) is taken as
 * existing; a patch or revision above it does not exist as far as uproot knows.
 */
export function judgeRelease(distro: Distro, version: KubernetesVersion): ReleaseVerdict {
  const newest = newestRelease(distro, version);
  if (newest === undefined) {
    const last = KNOWN_RELEASES[distro].newest[newestKnownMinor(distro)] ?? '';
    return { type: 'unknown-minor', newest: last };
  }
  const known = releaseKey(newest);
  const given = releaseKey(version.raw);
  return compareKeys(given, known) <= 0 ? { type: 'known' } : { type: 'newer-than-known', newest };
}

/** patch, then each number of the build suffix (`v1.30.14+rke2r4` → [14, 4]; `-rancher1-1` → [14, 1, 1]). */
function releaseKey(raw: string): number[] {
  const m = /^v?\d+\.\d+\.(\d+)(.*)$/.exec(raw.trim());
  if (!m) return [];
  return [Number(m[1]), ...[...(m[2] ?? '').matchAll(/\d+/g)].map((d) => Number(d[0]))];
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
