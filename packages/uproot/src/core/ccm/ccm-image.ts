import { InputError } from '../../errors/index.js';
import type { KubernetesVersion } from '../model/kubernetes-version.js';
import { FIRST_CCM_MINOR, releasesOf, type CcmRelease } from './ccm-releases.js';
import { CCM_DEFECTS, hasDefect } from './known-defects.js';

export const CCM_IMAGE_REPOSITORY = 'registry.k8s.io/provider-aws/cloud-controller-manager';
/** The aws-cloud-controller-manager chart 0.0.11 default: far newer than clusters that still run in-tree AWS. */
export const CHART_DEFAULT_CCM_TAG = 'v1.35.0';

/**
 * The CCM release uproot pins for a cluster at `version`: the same minor (never newer than the API server),
 * its newest tagged patch without a defect that hits every cluster (known-defects.ts). When every release of
 * the minor has such a defect (the ENI ordering before 1.26), the newest patch; preflight says so. Defects
 * that depend on configuration (the route controller's) do not move the pin: preflight and the planners ask
 * `routeControllerWorks` for the release.
 */
export function pinnedCcmRelease(version: KubernetesVersion): CcmRelease {
  if (version.major !== 1 || version.minor < FIRST_CCM_MINOR) {
    throw new InputError(
      'UP-CCM-VERSION',
      `no aws-cloud-controller-manager with leader migration exists for Kubernetes ${version.raw}`,
      {
        location: { field: 'kubernetesVersion', value: version.raw },
        hint: 'leader migration needs Kubernetes 1.21 or later; upgrade the cluster first',
      },
    );
  }
  const releases = releasesOf(version.minor);
  const clean = releases.filter((r) => !CCM_DEFECTS.some((d) => d.condition === 'always' && hasDefect(r, d)));
  const pick = clean.pop() ?? releases.pop();
  // A minor newer than the table: its first release (add the minor's tags to ccm-releases.ts).
  return pick ?? { major: 1, minor: version.minor, patch: 0, raw: `v1.${version.minor}.0` };
}

/** The CCM image tag for a cluster at `version` (see pinnedCcmRelease). */
export function ccmImageTagFor(version: KubernetesVersion): string {
  return pinnedCcmRelease(version).raw;
}

/** The minor a CCM image tag belongs to, or undefined when the tag is not a release tag. */
export function ccmTagMinor(tag: string): number | undefined {
  return ccmTagRelease(tag)?.minor;
}

/** A CCM image tag read as a release (`v1.26.14` → 1.26.14), or undefined when it is not a release tag. */
export function ccmTagRelease(tag: string): CcmRelease | undefined {
  const m = /^v?1\.(\d+)\.(\d+)(?:$|[-+])/.exec(tag);
  return m ? { major: 1, minor: Number(m[1]), patch: Number(m[2]), raw: tag } : undefined;
}
