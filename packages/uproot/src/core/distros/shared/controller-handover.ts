/**
 * Which manager runs `route` and `nodeipam` after the switch, and why: the two controllers whose owner depends
 * on kube-controller-manager flags rather than on the provider alone. Every plan states both decisions.
 *
 * - route: the KCM starts it only with --allocate-node-cidrs=true and --configure-cloud-routes=true
 *   (kubernetes/kubernetes cmd/kube-controller-manager/app/core.go startRouteController: "Will not configure
 *   cloud provider routes for allocate-node-cidrs: …"; --configure-cloud-routes defaults to true,
 *   --allocate-node-cidrs to false); the CCM with --configure-cloud-routes=true and a parseable --cluster-cidr
 *   (k8s.io/cloud-provider app/core.go startRouteController, v0.21-v0.36). Where the KCMs run it today it moves
 *   to the CCM, which gets the KCM's flags and --cluster-cidr, on a release whose route controller works
 *   (known-defects.ts, kubernetes/cloud-provider-aws#1351).
 * - nodeipam: the KCM runs it with --allocate-node-cidrs=true. Seed 003 moves it to the CCM only where the
 *   provider implements Node IPAM; no aws-cloud-controller-manager release does (implementsNodeIpam), so it
 *   stays in kube-controller-manager under its main lease: the leader-migration configuration does not list it.
 */
import { InputError } from '../../../errors/index.js';
import {
  ccmTagRelease,
  implementsNodeIpam,
  routeControllerDefect,
  routeControllerWorks,
  type CcmRelease,
} from '../../ccm/index.js';
import type { PlanFinding } from '../../model/plan-types.js';
import type { StepOptions } from '../distro.js';
import { lastFlagValue } from '../../model/flag-list.js';

const SEED_003 = 'seed 003 ("Migrate Replicated Control Plane To Use Cloud Controller Manager", Node IPAM)';

/** The kube-controller-manager flags that decide route and nodeipam, with where they came from. */
export interface KcmCloudFlags {
  readonly allocateNodeCidrs: boolean;
  readonly configureCloudRoutes: boolean;
  readonly clusterCidr: string | undefined;
  /** Where the flags are set, as the findings' field: `services.kube-controller.extra_args`. */
  readonly where: string;
}

/**
 * Reads the flags from a flag list (`--name=value`), the distribution's own defaults first so the user's
 * arguments win, and kube-controller-manager's built-in defaults last (allocate-node-cidrs false,
 * configure-cloud-routes true: cmd/kube-controller-manager/app/options, KubeCloudSharedOptions).
 */
export function kcmCloudFlags(
  args: readonly string[],
  distroDefaults: readonly string[],
  where: string,
): KcmCloudFlags {
  const all = [...distroDefaults, ...args];
  const bool = (name: string, fallback: boolean): boolean => {
    const value = lastFlagValue(all, name);
    return value === undefined ? fallback : value.toLowerCase() === 'true' || value === '1' || value === 't';
  };
  return {
    allocateNodeCidrs: bool('allocate-node-cidrs', false),
    configureCloudRoutes: bool('configure-cloud-routes', true),
    clusterCidr: lastFlagValue(all, 'cluster-cidr'),
    where,
  };
}

/** A CCM release the plan runs, and where (install, the migration, a hop). */
export interface PlannedCcm {
  readonly release: CcmRelease;
  readonly where: string;
}

/** Every CCM release a plan runs: at install, after the switch, and at each hop of the journey. */
export function plannedCcms(options: StepOptions): PlannedCcm[] {
  const out: PlannedCcm[] = [];
  const add = (tag: string, where: string): void => {
    const release = ccmTagRelease(tag);
    if (release && !out.some((c) => c.release.raw === release.raw)) out.push({ release, where });
  };
  add(options.ccmInstallTag, 'installed by install-ccm');
  add(options.ccmTargetTag, 'after the switch');
  for (const u of options.upgrades) add(u.ccmTag, `at ${u.step}, Kubernetes ${u.version}`);
  return out;
}

export interface ControllerHandover {
  /** Arguments the CCM takes over from the KCMs (route), always with --configure-cloud-routes explicit. */
  readonly ccmArgs: readonly string[];
  readonly runsRoute: boolean;
  readonly findings: readonly PlanFinding[];
}

/**
 * The route and nodeipam decisions. Throws when the plan would move route to a release that cannot list
 * routes (kubernetes/cloud-provider-aws#1351), or when `--with-nodeipam` asks for a Node IPAM the CCM lacks.
 */
export function planControllerHandover(input: {
  readonly kcm: KcmCloudFlags;
  readonly ccms: readonly PlannedCcm[];
  readonly withNodeIpam: boolean;
}): ControllerHandover {
  const { kcm, ccms } = input;
  if (input.withNodeIpam) refuseNodeIpam(ccms, kcm);
  const runsRoute = kcm.allocateNodeCidrs && kcm.configureCloudRoutes;
  if (runsRoute) refuseBrokenRoute(ccms);
  const findings: PlanFinding[] = [routeFinding(kcm, runsRoute, ccms), nodeIpamFinding(kcm)];
  const ccmArgs = runsRoute
    ? [
        '--allocate-node-cidrs=true',
        ...(kcm.clusterCidr ? [`--cluster-cidr=${kcm.clusterCidr}`] : []),
        '--configure-cloud-routes=true',
      ]
    : ['--configure-cloud-routes=false'];
  return { ccmArgs, runsRoute, findings };
}

function routeFinding(kcm: KcmCloudFlags, runsRoute: boolean, ccms: readonly PlannedCcm[]): PlanFinding {
  if (!runsRoute) {
    const off = kcm.allocateNodeCidrs ? '--configure-cloud-routes=false' : '--allocate-node-cidrs=false';
    return {
      severity: 'info',
      code: 'route-controller',
      message: `route runs in neither manager, before or after the switch: kube-controller-manager has ${off}, so the in-tree route controller never started; the CCM gets --configure-cloud-routes=false and creates no VPC routes.`,
      field: kcm.where,
    };
  }
  const releases = [...new Set(ccms.map((c) => c.release.raw))].join(', ');
  return {
    severity: 'info',
    code: 'route-controller',
    field: kcm.where,
    message: `route moves from kube-controller-manager to the CCM: the KCMs run it today (--allocate-node-cidrs=true, --configure-cloud-routes=true) and stop with --cloud-provider=external, so the CCM gets --allocate-node-cidrs=true${kcm.clusterCidr ? `, --cluster-cidr=${kcm.clusterCidr}` : ''} and --configure-cloud-routes=true and takes route through the migration lease. Its releases in this plan (${releases}) list routes correctly (kubernetes/cloud-provider-aws#1351).`,
    ...(kcm.clusterCidr
      ? {}
      : {
          hint: 'the KCM flags name no --cluster-cidr: add the cluster CIDR to the CCM arguments, or the route controller has no pod CIDRs to route',
        }),
  };
}

function nodeIpamFinding(kcm: KcmCloudFlags): PlanFinding {
  if (!kcm.allocateNodeCidrs) {
    return {
      severity: 'info',
      code: 'nodeipam-controller',
      message: `nodeipam runs in neither manager: kube-controller-manager has --allocate-node-cidrs=false, so pod CIDRs come from the network plugin; nothing changes hands.`,
      field: kcm.where,
    };
  }
  return {
    severity: 'info',
    code: 'nodeipam-controller',
    message: `nodeipam stays in kube-controller-manager: the KCMs allocate pod CIDRs (--allocate-node-cidrs=true${kcm.clusterCidr ? `, --cluster-cidr=${kcm.clusterCidr}` : ''}) and keep doing so after the switch, under their main lease (the leader-migration configuration does not list nodeipam). Seed 003 moves nodeipam to the CCM only where the provider implements Node IPAM, and no aws-cloud-controller-manager release does (cmd/aws-cloud-controller-manager/main.go starts cloud-node, cloud-node-lifecycle, service, route and tagging); --with-nodeipam is refused for that reason.`,
    field: kcm.where,
  };
}

function refuseNodeIpam(ccms: readonly PlannedCcm[], kcm: KcmCloudFlags): void {
  const lacking = ccms.filter((c) => !implementsNodeIpam(c.release));
  if (lacking.length === 0) return;
  throw new InputError(
    'UP-PLAN-NODEIPAM-CCM',
    `--with-nodeipam: the aws-cloud-controller-manager ${[...new Set(lacking.map((c) => c.release.raw))].join(', ')} does not implement Node IPAM, so nodeipam cannot move to it (a CCM started with --controllers=*,nodeipam exits: "nodeipam" is not in the list of known controllers)`,
    {
      location: { field: '--with-nodeipam', value: true },
      hint: `leave --with-nodeipam out: nodeipam stays in kube-controller-manager${kcm.allocateNodeCidrs ? ' (it keeps --allocate-node-cidrs=true)' : ''}, as ${SEED_003} says for providers without Node IPAM`,
    },
  );
}

function refuseBrokenRoute(ccms: readonly PlannedCcm[]): void {
  const broken = ccms.find((c) => !routeControllerWorks(c.release));
  if (!broken) return;
  const defect = routeControllerDefect(broken.release);
  const fix = defect?.fix
    ? `pass --ccm-image-tag ${defect.fix.raw} (the ${broken.release.major}.${broken.release.minor} release with the fix)`
    : `${defect?.noFix ?? 'no release of this minor has the fix'}: stop the journey before 1.${broken.release.minor} (--target-version) until a fixed release is tagged`;
  throw new InputError(
    'UP-PLAN-ROUTE-CCM-RELEASE',
    `the plan would move the route controller to the aws-cloud-controller-manager ${broken.release.raw} (${broken.where}), whose route controller fails with "error listing routes: expected to receive a single instance only" and creates no pod-CIDR routes (kubernetes/cloud-provider-aws#1351)`,
    {
      location: { field: '--target-version / --ccm-image-tag', value: broken.release.raw },
      hint: `${fix}; or stop relying on VPC routes for pod traffic and set --configure-cloud-routes=false on kube-controller-manager before migrating`,
    },
  );
}

/** The step options with the handover's and the carried cloud config's decisions (re-applied live). */
export function withCarriedDecisions(
  options: StepOptions,
  handover: ControllerHandover,
  carried: { readonly text: string | undefined } | undefined,
): StepOptions {
  return {
    ...options,
    decisions: {
      ...options.decisions,
      ccmArgs: [...handover.ccmArgs],
      ...(carried?.text !== undefined ? { cloudConfig: carried.text } : {}),
    },
  };
}
