/**
 * Which configuration each lease holder runs, for the ownership inference. A holder identity is
 * `<hostname>_<uuid>` (client-go), new for every process start; control-plane managers use the host network,
 * so the hostname names the node their pod runs on. A holder first seen after the pod on its host started is
 * that pod's process, judged by its flags. An earlier one is a previous process there, and a holder without
 * any pod (RKE runs docker containers) is unknown: both are judged by the plan's phases (config-phases.ts),
 * or, without a plan, as running every controller it has under its own lease. Every doubt resolves to the
 * profile that runs more controllers under more leases, so an overlap is reported rather than missed.
 */
import { flagEnabled, parseFlags } from '../model/component-flags.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../model/kubernetes-version.js';
import { imageTag } from '../model/index.js';
import {
  controllerName,
  controllerNameInEra,
  controllersOf,
  defaultLeaderMigrationConfiguration,
  MIGRATION_LEASE_NAME,
  type LogicalController,
  type ManagerComponent,
} from '../leader-migration/index.js';
import { INFERRED_CONTROLLERS, leaseFor, type ManagerProfile } from './lease-timeline.js';
import type { MigrationHistory } from './migration-history.js';
import type { StepId } from '../model/plan-types.js';
import {
  candidatesOf,
  configPhases,
  parsedVersion,
  phasesAt,
  plannedConfigs,
  plannedVersions,
  type Candidate,
  type ConfigPhase,
} from './config-phases.js';

/**
 * A controller manager's pod, reduced to what tells how its process runs (the engine's ComponentPodFacts is
 * one): where it runs, its command line, its image (whose tag carries the version) and when it started.
 */
export interface ManagerPod {
  readonly name: string;
  readonly nodeName?: string;
  /** The component container's command followed by its args. */
  readonly args: readonly string[];
  readonly image?: string;
  /** status.startTime (RFC 3339): a lease identity first seen before it belongs to an earlier process. */
  readonly startTime?: string;
}

/** The managers' pods now, per component. */
export type ComponentPods = Readonly<Record<ManagerComponent, readonly ManagerPod[]>>;

/** What the lease timeline tells about one holder. */
export interface HolderFacts {
  readonly identity: string;
  /** The manager whose main lease it held. */
  readonly component: ManagerComponent;
  /** When it was first seen holding any watched lease (observer's clock). */
  readonly firstSeen: number;
  /** Only a manager with leader migration on campaigns for the migration lease. */
  readonly heldMigrationLease: boolean;
  /** The step whose gate made that first look, when the journal kept it. */
  readonly firstSeenBy?: StepId;
}

/** How a holder's profile was found: its pod's flags, the plan's phases, both (unsure which), or neither. */
export type ProfileBasis = 'pod' | 'pod-or-plan' | 'plan' | 'default';

export interface ResolvedProfile {
  readonly profile: ManagerProfile;
  readonly basis: ProfileBasis;
}

/** Clock skew tolerated between uproot (observedAt) and the kubelet (a pod's startTime). */
export const POD_START_TOLERANCE_MS = 5_000;

const FALLBACK_VERSION = parseKubernetesVersion('1.26');
const CLOUD_CONTROLLERS: readonly LogicalController[] = ['route', 'service', 'cloud-node-lifecycle'];

/** The hostname part of a lease identity (`cp-1_5f0c…` → `cp-1`); the whole identity when it has no `_`. */
export function hostOfIdentity(identity: string): string {
  const at = identity.lastIndexOf('_');
  return at > 0 ? identity.slice(0, at) : identity;
}

/**
 * Whether a node (or pod) name names `host`, a lease identity's hostname: equal, or equal in the first DNS
 * label (`ip-10-0-0-10.ec2.internal` is host `ip-10-0-0-10`).
 */
export function namesHost(name: string, host: string): boolean {
  const label = (n: string): string => n.toLowerCase().split('.')[0] ?? '';
  return name.toLowerCase() === host.toLowerCase() || label(name) === label(host);
}

/** Whether a pod runs on `host`: its node, or (without the host network) the pod itself, is named so. */
export function podOnHost(pod: ManagerPod, host: string): boolean {
  return [pod.nodeName, pod.name].some((name) => name !== undefined && namesHost(name, host));
}

/** The version in an image tag (`…/kube-controller-manager:v1.26.5`, `…:v1.26.15-rke2r1-build…`). */
export function imageVersion(image: string | undefined): KubernetesVersion | undefined {
  const tag = image ? imageTag(image) : undefined;
  return tag === undefined ? undefined : parsedVersion(tag);
}

/**
 * What a pod's flags say: --cloud-provider (KCM runs the cloud controllers only in-tree, and only those
 * --controllers leaves on), --enable-leader-migration (effective only with leader election), and
 * --leader-migration-config (a file the plan writes, else unknown; without it the version's default).
 */
export function podCandidates(
  pod: ManagerPod,
  component: ManagerComponent,
  history: MigrationHistory | undefined,
): Candidate[] {
  const flags = parseFlags(pod.args);
  const provider = flags.get('cloud-provider') ?? '';
  const migrating =
    flagEnabled(flags, 'leader-elect', true) && flagEnabled(flags, 'enable-leader-migration', false);
  const path = flags.get('leader-migration-config') || undefined;
  const controllers = flags
    .get('controllers')
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const cloudControllers =
    component === 'cloud-controller-manager' ||
    (provider !== '' && provider !== 'external' && enablesCloudController(controllers));
  const own = imageVersion(pod.image);
  const planned = plannedVersions(history?.plan, component);
  const versions = own ? [own] : planned.length > 0 ? planned : [FALLBACK_VERSION];
  return candidatesOf(versions, cloudControllers, migrating, (v) =>
    path !== undefined ? plannedConfigs(history?.plan, v, path) : [defaultLeaderMigrationConfiguration(v)],
  );
}

/** IsControllerEnabled for any cloud controller, by either era's name (1.28+ accepts the old ones as aliases). */
function enablesCloudController(controllers: readonly string[] | undefined): boolean {
  if (!controllers) return true;
  return CLOUD_CONTROLLERS.some((logical) => {
    const names = [controllerNameInEra(logical, false), controllerNameInEra(logical, true)];
    for (const entry of controllers) {
      if (names.includes(entry)) return true;
      if (names.some((n) => entry === `-${n}`)) return false;
    }
    return controllers.includes('*');
  });
}

/** Runs every controller it has under its own lease: the most owning profile, for holders nothing is known of. */
export function safeDefaultProfile(version: KubernetesVersion = FALLBACK_VERSION): ManagerProfile {
  return { version, cloudControllers: true };
}

/**
 * One profile that owns, for every controller, as much as the most owning candidate: under the main lease if
 * any candidate runs it there, else under the migration lease if any does, else not at all.
 */
export function mostOwningProfile(
  component: ManagerComponent,
  candidates: readonly ManagerProfile[],
): ManagerProfile {
  const first = candidates[0];
  if (!first) return safeDefaultProfile();
  if (candidates.every((c) => sameProfile(c, first))) return first;
  const level = (p: ManagerProfile, logical: LogicalController): number => {
    const lease = leaseFor(component, p, logical);
    return lease === 'main' ? 2 : lease === 'migration' ? 1 : 0;
  };
  const other: ManagerComponent =
    component === 'kube-controller-manager' ? 'cloud-controller-manager' : 'kube-controller-manager';
  const leaders = INFERRED_CONTROLLERS.flatMap((logical) => {
    const max = Math.max(...candidates.map((p) => level(p, logical)));
    const name = controllerName(logical, first.version);
    if (max === 2 || (max === 0 && !controllersOf(component, first.version).includes(name))) return [];
    // Listed for the other manager = not run here (upstream's "unowned").
    return [{ name, component: max === 1 ? component : other }];
  });
  if (leaders.length === 0) return { version: first.version, cloudControllers: true };
  const leaderName = candidates.find((c) => c.migration)?.migration?.leaderName ?? MIGRATION_LEASE_NAME;
  return {
    version: first.version,
    cloudControllers: true,
    migration: { leaderName, resourceLock: 'leases', controllerLeaders: leaders },
  };
}

function sameProfile(a: ManagerProfile, b: ManagerProfile): boolean {
  return (
    a.version.major === b.version.major &&
    a.version.minor === b.version.minor &&
    a.cloudControllers === b.cloudControllers &&
    JSON.stringify(a.migration) === JSON.stringify(b.migration)
  );
}

export interface ProfileEvidence {
  /** Undefined when the pods could not be read: every holder is then judged by the plan. */
  readonly pods?: ComponentPods;
  readonly history?: MigrationHistory;
}

/** The profile of every holder, by identity (what `inferOwnership` takes as identityProfiles). */
export function identityProfiles(
  holders: readonly HolderFacts[],
  evidence: ProfileEvidence,
): Record<string, ResolvedProfile> {
  const phases = new Map<ManagerComponent, ConfigPhase[]>();
  const phasesOf = (component: ManagerComponent): ConfigPhase[] => {
    if (!evidence.history) return [];
    let list = phases.get(component);
    if (!list) phases.set(component, (list = configPhases(evidence.history, component)));
    return list;
  };
  const out: Record<string, ResolvedProfile> = {};
  for (const holder of holders) {
    const host = hostOfIdentity(holder.identity);
    const fromPods: Candidate[] = [];
    let surely = false;
    for (const pod of (evidence.pods?.[holder.component] ?? []).filter((p) => podOnHost(p, host))) {
      const started = pod.startTime ? Date.parse(pod.startTime) : NaN;
      if (Number.isNaN(started) || holder.firstSeen >= started - POD_START_TOLERANCE_MS)
        fromPods.push(...podCandidates(pod, holder.component, evidence.history));
      if (holder.firstSeen >= started + POD_START_TOLERANCE_MS) surely = true;
    }
    const look =
      holder.firstSeenBy && evidence.history
        ? { step: holder.firstSeenBy, steps: evidence.history.plan.steps.map((s) => s.id) }
        : undefined;
    const fromPlan = surely
      ? []
      : phasesAt(phasesOf(holder.component), holder.firstSeen, look).flatMap((p) => p.candidates);
    let candidates = [...fromPods, ...fromPlan];
    // A holder of the migration lease had leader migration on, whatever else it might have run.
    if (holder.heldMigrationLease && candidates.some((c) => c.migrating))
      candidates = candidates.filter((c) => c.migrating);
    const basis: ProfileBasis = surely
      ? 'pod'
      : fromPods.length > 0
        ? 'pod-or-plan'
        : fromPlan.length > 0
          ? 'plan'
          : 'default';
    out[holder.identity] = {
      profile:
        candidates.length > 0
          ? mostOwningProfile(
              holder.component,
              candidates.map((c) => c.profile),
            )
          : safeDefaultProfile(plannedVersions(evidence.history?.plan, holder.component)[0]),
      basis,
    };
  }
  return out;
}
