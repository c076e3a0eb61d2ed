/**
 * The profiled ownership inference: the journal's lease records, read as observations, run through
 * `inferOwnership` with each holder's profile (holder-profiles.ts), and every span in which two processes ran
 * the same logical controller reported with both identities.
 *
 * The journal keeps holder changes only (a renewal by the same holder is not news), so a holder counts until
 * a record names another: never less ownership than the real expiry would give.
 */
import type { LeaseObservation } from '../../election/model/index.js';
import type { LogicalController, ManagerComponent } from '../leader-migration/index.js';
import { migrationLeaseOf } from './config-phases.js';
import { LEASE_FRESHNESS_GRACE_SECONDS, LEASE_NAMESPACE, type LeaseRecord } from './lease-record.js';
import { handoverObservations } from './handover-observations.js';
import { inferOwnership } from './lease-timeline.js';
import type { MigrationHistory } from './migration-history.js';
import type { OwnershipReport } from './ownership-report.js';
import {
  identityProfiles,
  safeDefaultProfile,
  type ComponentPods,
  type HolderFacts,
  type ProfileBasis,
  type ResolvedProfile,
} from './holder-profiles.js';

export interface OwnershipEvidence {
  /** The managers' pods now; undefined when they could not be read. */
  readonly pods?: ComponentPods;
  readonly history?: MigrationHistory;
  /** The end of the window judged (the gate's look). */
  readonly now: number;
}

/** Two (or more) processes running the same logical controllers at once, over one span. */
export interface InferredOverlap {
  /** Logical controller names (`service`, not `service-lb-controller`), sorted. */
  readonly controllers: readonly string[];
  readonly identities: readonly string[];
  readonly from: number;
  readonly to: number;
  readonly description: string;
}

export interface ProfiledInference {
  readonly overlaps: readonly InferredOverlap[];
  /** How many holders were judged on each basis, for the verdict's detail. */
  readonly bases: Readonly<Partial<Record<ProfileBasis, number>>>;
}

const MAIN_LEASE: Record<ManagerComponent, string> = {
  'kube-controller-manager': 'kube-controller-manager',
  'cloud-controller-manager': 'cloud-controller-manager',
};

/**
 * The journal's lease records as observations. A holder never expires between two records (renewals
 * are not journaled); but when the latest record of a lease shows a renewTime older than its duration (plus
 * the skew grace), its holder had stopped renewing, and so leading, by then: nobody holds it from that time.
 */
export function observationsFromRecords(timeline: readonly LeaseRecord[]): LeaseObservation[] {
  let out: LeaseObservation[] = timeline
    .filter((o) => o.namespace === LEASE_NAMESPACE && !Number.isNaN(Date.parse(o.observedAt)))
    .map((o) => {
      const renew = o.renewTime ? Date.parse(o.renewTime) : NaN;
      const acquire = o.acquireTime ? Date.parse(o.acquireTime) : NaN;
      return {
        time: Date.parse(o.observedAt),
        name: o.name,
        namespace: o.namespace,
        present: true,
        holderIdentity: o.holder,
        leaseDurationSeconds: Infinity,
        ...(Number.isNaN(renew) ? {} : { renewTime: renew }),
        ...(Number.isNaN(acquire) ? {} : { acquireTime: acquire }),
        ...(o.transitions !== undefined ? { leaseTransitions: o.transitions } : {}),
      };
    })
    .sort((a, b) => a.time - b.time);
  const latest = new Map<string, LeaseRecord>();
  for (const o of timeline.filter((x) => x.namespace === LEASE_NAMESPACE)) {
    const seen = latest.get(o.name);
    if (!seen || Date.parse(o.observedAt) >= Date.parse(seen.observedAt)) latest.set(o.name, o);
  }
  for (const [name, last] of latest) {
    const renewed = last.renewTime ? Date.parse(last.renewTime) : NaN;
    if (!last.holder || Number.isNaN(renewed) || last.leaseDurationSeconds === undefined) continue;
    const expiry = renewed + (last.leaseDurationSeconds + LEASE_FRESHNESS_GRACE_SECONDS) * 1000;
    if (!(expiry < Date.parse(last.observedAt))) continue;
    out = out.filter((o) => !(o.name === name && o.time > expiry && o.holderIdentity === last.holder));
    out.push({ time: expiry, name, present: true, holderIdentity: '', leaseDurationSeconds: Infinity });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * Every holder of a main lease, with when it was first seen (and by which step's look, from `timeline`) and
 * whether it ever held the migration lease.
 */
export function holdersOf(
  observations: readonly LeaseObservation[],
  migrationLease: string,
  timeline: readonly LeaseRecord[] = [],
): HolderFacts[] {
  const sorted = [...observations].sort((a, b) => a.time - b.time);
  const firstSeen = new Map<string, number>();
  const migrating = new Set<string>();
  const components = new Map<string, ManagerComponent>();
  for (const o of sorted) {
    if (!o.holderIdentity) continue;
    if (!firstSeen.has(o.holderIdentity)) firstSeen.set(o.holderIdentity, o.time);
    if (o.name === migrationLease) migrating.add(o.holderIdentity);
    for (const component of ['kube-controller-manager', 'cloud-controller-manager'] as const) {
      if (o.name === MAIN_LEASE[component] && !components.has(o.holderIdentity))
        components.set(o.holderIdentity, component);
    }
  }
  return [...components].map(([identity, component]) => {
    const first = firstSeen.get(identity)!;
    const look = timeline.find((o) => o.holder === identity && Date.parse(o.observedAt) === first)?.step;
    return {
      identity,
      component,
      firstSeen: first,
      heldMigrationLease: migrating.has(identity),
      ...(look ? { firstSeenBy: look } : {}),
    };
  });
}

/**
 * Who ran each logical controller over the whole timeline up to `evidence.now`, each holder judged by its
 * profile (before leader migration was enabled, the in-tree KCM's leader ran the cloud controllers under its
 * own lease). Undefined when the timeline holds no observation.
 *
 * `view`: `overlap` (default) lets every holder live until another is seen, so no overlap is missed;
 * `handover` ends each holder at its last renewal and starts the next at its acquisition
 * (handover-observations.ts), so the gaps between owners are the longest they can have been.
 */
export function inferProfiledOwnership(
  timeline: readonly LeaseRecord[],
  evidence: OwnershipEvidence,
  controllers?: readonly LogicalController[],
  view: 'overlap' | 'handover' = 'overlap',
): { report: OwnershipReport; resolved: Record<string, ResolvedProfile> } | undefined {
  const observations = observationsFromRecords(timeline);
  if (observations.length === 0) return undefined;
  const migration = migrationLeaseOf(evidence.history?.plan);
  const resolved = identityProfiles(holdersOf(observations, migration, timeline), evidence);
  const judged = view === 'handover' ? handoverObservations(timeline) : observations;
  const times = [...observations, ...judged].map((o) => o.time);
  const window = { from: Math.min(...times), to: Math.max(evidence.now, ...times) };
  const report = inferOwnership({
    observations: judged,
    leases: { migration },
    profiles: {
      'kube-controller-manager': safeDefaultProfile(),
      'cloud-controller-manager': safeDefaultProfile(),
    },
    identityProfiles: Object.fromEntries(Object.entries(resolved).map(([id, r]) => [id, r.profile])),
    window,
    ...(controllers ? { controllers } : {}),
  });
  return { report, resolved };
}

/** Runs the inference over the whole timeline up to `evidence.now`. */
export function inferProfiledOverlaps(
  timeline: readonly LeaseRecord[],
  evidence: OwnershipEvidence,
): ProfiledInference {
  const inferred = inferProfiledOwnership(timeline, evidence);
  if (!inferred) return { overlaps: [], bases: {} };
  const bases: Partial<Record<ProfileBasis, number>> = {};
  for (const r of Object.values(inferred.resolved)) bases[r.basis] = (bases[r.basis] ?? 0) + 1;
  return { overlaps: overlapsIn(inferred.report, inferred.resolved), bases };
}

interface OverlapGroup {
  readonly controllers: string[];
  readonly identities: readonly string[];
  readonly from: number;
  readonly to: number;
  /** Per identity, its own names of the controllers where they differ from the logical ones. */
  readonly names: Map<string, string[]>;
}

/** The report's overlaps, one per set of processes and span, naming the controllers as each manager does. */
function overlapsIn(
  report: OwnershipReport,
  resolved: Readonly<Record<string, { readonly basis: ProfileBasis }>>,
): InferredOverlap[] {
  const groups = new Map<string, OverlapGroup>();
  const components = new Map<string, string>();
  for (const [controller, ownership] of Object.entries(report.controllers)) {
    for (const o of ownership.overlaps) {
      const key = `${o.identities.join(' ')}|${o.from}|${o.to}`;
      const group: OverlapGroup = groups.get(key) ?? {
        controllers: [],
        identities: o.identities,
        from: o.from,
        to: o.to,
        names: new Map(),
      };
      groups.set(key, group);
      group.controllers.push(controller);
      for (const identity of o.identities) {
        const i = ownership.intervals.find((x) => x.identity === identity && x.from < o.to && x.to > o.from);
        if (!i) continue;
        components.set(identity, i.component);
        // A manager's own name for it, when the 1.28 rename makes it differ.
        if (i.controllerName !== controller)
          group.names.set(identity, [...(group.names.get(identity) ?? []), i.controllerName]);
      }
    }
  }
  return [...groups.values()].map((g) => {
    const who = g.identities.map((identity) => {
      const component = components.get(identity);
      const names = g.names.get(identity);
      const as = names ? ` as ${names.join(', ')}` : '';
      return component ? `${identity} (${component}${as})` : identity;
    });
    return {
      controllers: g.controllers,
      identities: g.identities,
      from: g.from,
      to: g.to,
      description: `${g.controllers.join(', ')} ran in ${who.join(' and ')} from ${iso(g.from)} to ${iso(g.to)} (${seconds(g.to - g.from)} s)${assumed(g.identities, resolved)}`,
    };
  });
}

/** Says which processes were judged without their flags, so a reader can tell an assumption from a finding. */
function assumed(
  identities: readonly string[],
  resolved: Readonly<Record<string, { readonly basis: ProfileBasis }>>,
): string {
  const unknown = identities.filter((id) => resolved[id]?.basis === 'default');
  return unknown.length > 0
    ? ` (no pod or plan tells how ${unknown.join(' and ')} ran: assumed to run every controller under its own lease)`
    : '';
}

const iso = (ms: number): string => new Date(ms).toISOString();
const seconds = (ms: number): number => Math.round(ms / 100) / 10;
