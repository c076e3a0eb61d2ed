/**
 * cloud-provider-aws releases with known defects, as data: which releases of which minor, what users see, and
 * the first release of the minor that fixes it. Read from the release branches and tags of
 * kubernetes/cloud-provider-aws (`git tag --contains <fix commit>`), not from release notes alone.
 */
import { CCM_RELEASES, releasesOf, type CcmRelease } from './ccm-releases.js';

/**
 * `always`: every cluster on the release is exposed. `route-controller`: only a CCM that runs the route
 * controller (--allocate-node-cidrs and --configure-cloud-routes) is.
 */
export type DefectCondition = 'always' | 'route-controller';

/** How a minor is affected: from which patch, and where the fix is. */
export interface AffectedMinor {
  readonly fromPatch: number;
  /**
   * A patch number: the first tagged release with the fix. `unreleased`: the fix is merged on the minor's
   * release branch after its newest tag, so the next patch will carry it. `none`: no release of the minor
   * has it and none will (the branch gets no more fixes).
   */
  readonly fixedIn: number | 'unreleased' | 'none';
}

export interface CcmDefect {
  readonly id: 'eni-address-order' | 'route-list-single-instance';
  readonly summary: string;
  /** What a user of an affected release sees. */
  readonly effect: string;
  readonly condition: DefectCondition;
  /** Issues and pull requests in kubernetes/cloud-provider-aws, and the file the fix changed. */
  readonly sources: readonly string[];
  readonly affected: Readonly<Record<number, AffectedMinor>>;
  /** For `unreleased` fixes: which pull request carries it on the release branch. */
  readonly pendingFix?: Readonly<Record<number, string>>;
}

export const CCM_DEFECTS: readonly CcmDefect[] = [
  {
    id: 'eni-address-order',
    summary: 'node addresses not ordered by network-interface device index',
    effect:
      "on instances with several ENIs, a secondary-ENI or pod IP can become the node's InternalIP; kubectl logs/exec and anything else that dials the kubelet then break",
    condition: 'always',
    // #909 "Ensure that addresses are added in network device index order" (pkg/providers/v1/aws.go,
    // extractIPv4NodeAddresses sorts NetworkInterfaces by Attachment.DeviceIndex), cherry-picked as #921..#925;
    // reported in #656 and #890, released with #911. The 1.25 and older branches never got it.
    sources: [
      'kubernetes/cloud-provider-aws#656',
      'kubernetes/cloud-provider-aws#890',
      'kubernetes/cloud-provider-aws#909',
      'kubernetes/cloud-provider-aws#911',
      'pkg/providers/v1/aws.go (extractIPv4NodeAddresses)',
    ],
    affected: {
      21: { fromPatch: 0, fixedIn: 'none' },
      22: { fromPatch: 0, fixedIn: 'none' },
      23: { fromPatch: 0, fixedIn: 'none' },
      24: { fromPatch: 0, fixedIn: 'none' },
      25: { fromPatch: 0, fixedIn: 'none' },
      26: { fromPatch: 0, fixedIn: 12 },
      27: { fromPatch: 0, fixedIn: 7 },
      28: { fromPatch: 0, fixedIn: 6 },
      29: { fromPatch: 0, fixedIn: 3 },
      30: { fromPatch: 0, fixedIn: 1 },
    },
  },
  {
    id: 'route-list-single-instance',
    summary: 'the route controller cannot list routes',
    effect:
      'the route controller fails with "Couldn\'t reconcile node routes: error listing routes: expected to receive a single instance only, found N" and creates no pod-CIDR routes',
    condition: 'route-controller',
    // From v1.34.0 getInstancesByIDs goes through describeInstanceBatcher, which refused more than one
    // instance id (pkg/providers/v1/describe_instance_batch.go). Reported on v1.34.1 and v1.35.0 (#1351),
    // fixed on master by #1388, cherry-picked as #1463 (release-1.36, in v1.36.1), #1464 (release-1.35) and
    // #1465 (release-1.34), the last two after v1.35.2 and v1.34.3 were tagged.
    sources: [
      'kubernetes/cloud-provider-aws#1351',
      'kubernetes/cloud-provider-aws#1388',
      'kubernetes/cloud-provider-aws#1463',
      'kubernetes/cloud-provider-aws#1464',
      'kubernetes/cloud-provider-aws#1465',
      'pkg/providers/v1/describe_instance_batch.go',
    ],
    affected: {
      34: { fromPatch: 0, fixedIn: 'unreleased' },
      35: { fromPatch: 0, fixedIn: 'unreleased' },
      36: { fromPatch: 0, fixedIn: 1 },
    },
    pendingFix: {
      34: 'kubernetes/cloud-provider-aws#1465 (merged on release-1.34 after v1.34.3)',
      35: 'kubernetes/cloud-provider-aws#1464 (merged on release-1.35 after v1.35.2)',
    },
  },
];

/** Whether `release` has `defect`. A patch newer than the table's for an `unreleased` fix carries the fix. */
export function hasDefect(release: CcmRelease, defect: CcmDefect): boolean {
  if (release.major !== 1) return false;
  const minor = defect.affected[release.minor];
  if (!minor || release.patch < minor.fromPatch) return false;
  if (typeof minor.fixedIn === 'number') return release.patch < minor.fixedIn;
  if (minor.fixedIn === 'none') return true;
  const newestTagged = Math.max(...(CCM_RELEASES[release.minor] ?? [0]));
  return release.patch <= newestTagged;
}

/** The first tagged release of the minor without `defect`, if one exists. */
export function firstFixedRelease(minor: number, defect: CcmDefect): CcmRelease | undefined {
  return releasesOf(minor).find(
    (r) => r.patch >= (defect.affected[minor]?.fromPatch ?? 0) && !hasDefect(r, defect),
  );
}

export interface DefectFinding {
  readonly defect: CcmDefect;
  /** The release of the same minor to move to, when one exists. */
  readonly fix?: CcmRelease;
  /** Why there is no fixed release to move to (no release of the minor has it, or it is not tagged yet). */
  readonly noFix?: string;
}

/** The known defects of `release` that matter for a CCM that does (or does not) run the route controller. */
export function knownDefects(release: CcmRelease, options: { readonly runsRoute: boolean }): DefectFinding[] {
  return CCM_DEFECTS.filter(
    (d) => hasDefect(release, d) && (d.condition === 'always' || options.runsRoute),
  ).map((defect) => {
    // The newest release of the minor without the defect: the one to move to (the pin prefers it too).
    const fix = releasesOf(release.minor)
      .filter((r) => !hasDefect(r, defect))
      .pop();
    if (fix) return { defect, fix };
    const pending = defect.pendingFix?.[release.minor];
    return {
      defect,
      noFix: pending
        ? `no tagged 1.${release.minor} release has the fix yet: ${pending}`
        : `no 1.${release.minor} release has the fix`,
    };
  });
}

/** Whether the route controller works on `release` (kubernetes/cloud-provider-aws#1351), for the planners. */
export function routeControllerWorks(release: CcmRelease): boolean {
  return !CCM_DEFECTS.some((d) => d.condition === 'route-controller' && hasDefect(release, d));
}

/** The defect that stops the route controller on `release`, with the release to move to (or why none exists). */
export function routeControllerDefect(release: CcmRelease): DefectFinding | undefined {
  return knownDefects(release, { runsRoute: true }).find((f) => f.defect.condition === 'route-controller');
}
