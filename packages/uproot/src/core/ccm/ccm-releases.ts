/**
 * Every cloud-provider-aws release per Kubernetes minor, from the release tags of kubernetes/cloud-provider-aws
 * (`git tag`, final releases only; 1.23 jumps from v1.23.7 to v1.23.17, 1.24 from v1.24.5 to v1.24.15, 1.25
 * from v1.25.3 to v1.25.11, 1.26 from v1.26.1 to v1.26.6: those patch numbers were never tagged).
 *
 * A tag is pushed before its image is promoted to registry.k8s.io (kubernetes/k8s.io image-promoter PRs,
 * usually within days). The newest tag here, v1.36.1, was pushed on 2026-07-15, months before this table was
 * last updated (AS_OF), so every listed release is taken to be promoted. Add a new tag only once
 * `registry.k8s.io/provider-aws/cloud-controller-manager` lists it; until then an unpulled image would stop the
 * rollout gate with ImagePullBackOff, and `--ccm-image-tag` picks another release.
 */
import type { KubernetesVersion } from '../model/kubernetes-version.js';

/** When the table was last compared with the upstream tags. */
export const CCM_RELEASES_AS_OF = '2026-11-22';

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Patch numbers of the tagged releases, by minor (1.x). */
export const CCM_RELEASES: Readonly<Record<number, readonly number[]>> = {
  21: range(0, 7),
  22: range(0, 8),
  23: [...range(0, 7), ...range(17, 21)],
  24: [...range(0, 5), ...range(15, 20)],
  25: [...range(0, 3), ...range(11, 16)],
  26: [0, 1, ...range(6, 14)],
  27: range(0, 10),
  28: range(0, 11),
  29: range(0, 10),
  30: range(0, 10),
  31: range(0, 9),
  32: range(0, 8),
  33: range(0, 4),
  34: range(0, 3),
  35: range(0, 2),
  36: range(0, 1),
};

/** The oldest and newest minors with a CCM release that supports leader migration. */
export const FIRST_CCM_MINOR = 21;
export const NEWEST_CCM_MINOR = Math.max(...Object.keys(CCM_RELEASES).map(Number));

/** A CCM release: a cloud-provider-aws tag read as a version (v1.26.14 → 1.26.14). */
export type CcmRelease = KubernetesVersion;

export function ccmRelease(minor: number, patch: number): CcmRelease {
  return { major: 1, minor, patch, raw: `v1.${minor}.${patch}` };
}

/** The tagged releases of a minor, oldest first (empty for a minor the table does not know). */
export function releasesOf(minor: number): CcmRelease[] {
  return (CCM_RELEASES[minor] ?? []).map((patch) => ccmRelease(minor, patch));
}

/** Whether `release` is a tag in the table. */
export function isTaggedRelease(release: CcmRelease): boolean {
  return release.major === 1 && (CCM_RELEASES[release.minor] ?? []).includes(release.patch);
}
