/**
 * Hands an expired manager lease to the standbys as soon as leader election allows it, instead of when each
 * standby happens to notice.
 *
 * Neither kube-controller-manager nor the cloud-controller-manager sets ReleaseOnCancel (kubernetes
 * cmd/kube-controller-manager/app/controllermanager.go and k8s.io/cloud-provider/app/controllermanager.go
 * leaderElectAndRun), so a holder that restarts leaves its lease behind, and a standby takes it only after it
 * has seen no change for leaseDurationSeconds *on its own clock*, counted from the poll at which it first saw
 * the last renewal. Standbys poll every RetryPeriod × (1 + U[0, 1.2)) (client-go leaderelection.go acquire,
 * JitterUntil with JitterFactor 1.2), so both ends of that wait carry up to 2.2 RetryPeriods of lag: with the
 * default flags a handover lands 15 to 23.8 s after the last renewal, past the promise's 20 s bound in about
 * one handover in 130 (decision 0027).
 *
 * The run already looks at the leases every second (lease-poller.ts). When a look finds a lease unchanged for
 * its leaseDurationSeconds since this run first saw that record, the lease has expired by the very rule the
 * standbys apply (client-go isLeaseValid: observedTime + leaseDurationSeconds), with a one-second observation
 * lag instead of theirs; the holder had long given up by then (it stops leading RenewDeadline after its last
 * renewal attempt, 10 s by default). The run then writes what client-go's release() writes (holder "",
 * leaseDurationSeconds 1, acquire and renew time now, transitions kept), with the resourceVersion it read, so
 * a renewal or a takeover that came first wins with a 409 and nothing is overwritten. A standby takes a
 * lease with no holder at its next poll (tryAcquireOrRenew), so the handover ends within one jittered
 * RetryPeriod of the expiry: at most LeaseDuration + 1 s + 2.2 × RetryPeriod after the last renewal.
 */
import type { Clock } from '../../clock/index.js';
import { formatMicroTime, parseMicroTime, recordToLeaseSpec } from '../../election/index.js';
import { LEASE_NAMESPACE } from '../../core/ownership/index.js';
import { hasApiStatus, type KubeObject, type ObjectStore } from '../ports.js';
import type { LeaseFacts } from './gate-facts.js';

/** A lease record as this run first saw it, and when (the run's clock). */
export interface LeaseSighting {
  readonly lease: LeaseFacts;
  readonly since: number;
}

export type LeaseSightings = ReadonlyMap<string, LeaseSighting>;

const keyOf = (lease: Pick<LeaseFacts, 'namespace' | 'name'>): string => `${lease.namespace}/${lease.name}`;

/** Everything a holder's renewal or a takeover changes: a different fingerprint is a new record. */
function fingerprint(lease: LeaseFacts): string {
  return JSON.stringify([
    lease.holderIdentity ?? '',
    parseMicroTime(lease.renewTime) ?? null,
    parseMicroTime(lease.acquireTime) ?? null,
    lease.leaseTransitions ?? 0,
    lease.leaseDurationSeconds ?? 0,
  ]);
}

/** The sightings after one look: a record seen before keeps its first sighting, a changed one starts anew. */
export function sightLeases(
  previous: LeaseSightings,
  leases: readonly LeaseFacts[],
  watched: ReadonlySet<string>,
  now: number,
): LeaseSightings {
  const next = new Map<string, LeaseSighting>();
  for (const lease of leases) {
    if (!watched.has(lease.name)) continue;
    const before = previous.get(keyOf(lease));
    const same = before !== undefined && fingerprint(before.lease) === fingerprint(lease);
    next.set(keyOf(lease), same ? before : { lease, since: now });
  }
  return next;
}

/** When a sighting's record expires by client-go's rule, or undefined when it has no holder to expire. */
export function expiresAt(sighting: LeaseSighting): number | undefined {
  const { holderIdentity, leaseDurationSeconds } = sighting.lease;
  if (!holderIdentity || !leaseDurationSeconds || leaseDurationSeconds <= 0) return undefined;
  return sighting.since + leaseDurationSeconds * 1000;
}

/** The sightings whose holder has not renewed for its lease duration since this run first saw the record. */
export function expiredSightings(sightings: LeaseSightings, now: number): LeaseSighting[] {
  return [...sightings.values()].filter((s) => {
    const at = expiresAt(s);
    return at !== undefined && at <= now;
  });
}

/** The first expiry still to come, so the poller can look exactly then instead of up to a second later. */
export function nextExpiry(sightings: LeaseSightings, now: number): number | undefined {
  const upcoming = [...sightings.values()]
    .map(expiresAt)
    .filter((at): at is number => at !== undefined && at > now);
  return upcoming.length > 0 ? Math.min(...upcoming) : undefined;
}

export type ReleaseOutcome = 'released' | 'changed' | 'gone' | 'forbidden';

const leaseSpecOf = (lease: KubeObject): Record<string, unknown> =>
  (lease.spec ?? {}) as Record<string, unknown>;

/** True when the live object still holds the record the sighting saw (times compared as instants). */
function unchangedSince(live: KubeObject, sighting: LeaseSighting): boolean {
  const spec = leaseSpecOf(live);
  const asFacts: LeaseFacts = {
    namespace: sighting.lease.namespace,
    name: sighting.lease.name,
    ...(typeof spec.holderIdentity === 'string' ? { holderIdentity: spec.holderIdentity } : {}),
    ...(typeof spec.leaseDurationSeconds === 'number'
      ? { leaseDurationSeconds: spec.leaseDurationSeconds }
      : {}),
    ...(typeof spec.acquireTime === 'string' ? { acquireTime: spec.acquireTime } : {}),
    ...(typeof spec.renewTime === 'string' ? { renewTime: spec.renewTime } : {}),
    ...(typeof spec.leaseTransitions === 'number' ? { leaseTransitions: spec.leaseTransitions } : {}),
  };
  return fingerprint(asFacts) === fingerprint(sighting.lease);
}

/**
 * Writes client-go's release record over an expired lease, if it still holds the record that expired, with
 * the resourceVersion just read (a 409 means someone renewed or took it first: nothing to do).
 */
export async function releaseExpiredLease(
  objects: Pick<ObjectStore, 'get' | 'replace'>,
  sighting: LeaseSighting,
  now: number,
): Promise<ReleaseOutcome> {
  const { namespace, name } = sighting.lease;
  try {
    const live = await objects.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name });
    if (!live) return 'gone';
    if (!unchangedSince(live, sighting)) return 'changed';
    await objects.replace(releasedRecord(live, now));
    return 'released';
  } catch (error) {
    return outcomeOfFailedWrite(error);
  }
}

/** What client-go's release() writes over a lease (holder "", duration 1 s, times now, transitions kept). */
function releasedRecord(live: KubeObject, now: number): KubeObject {
  const transitions = leaseSpecOf(live).leaseTransitions;
  const released = recordToLeaseSpec({
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: now,
    renewTime: now,
    leaderTransitions: typeof transitions === 'number' ? transitions : 0,
  });
  return { ...live, spec: { ...released } };
}

function outcomeOfFailedWrite(error: unknown): Exclude<ReleaseOutcome, 'released'> {
  if (hasApiStatus(error, 409)) return 'changed';
  if (hasApiStatus(error, 404)) return 'gone';
  if (hasApiStatus(error, 403)) return 'forbidden';
  throw error;
}

/**
 * Releases the named leases that `identity` still holds, once the caller knows that process has ended: on
 * kubeadm, a node's manager whose static pod now runs the new manifest. The kubelet starts a static pod only
 * after the previous pod of the same full name has terminated (kubernetes pkg/kubelet/pod_workers.go
 * allowStaticPodStart), and a restarted manager takes a new identity (`<hostname>_<uuid>`, cmd/
 * kube-controller-manager/app/controllermanager.go and k8s.io/cloud-provider/app/controllermanager.go), so
 * the holder named here can no longer renew, and nobody else's lease is touched. The write is the release
 * client-go's ReleaseOnCancel would have made as the process stopped, with the resourceVersion just read; a
 * standby takes it at its next try instead of after the lease duration (decision 0033). `startedAt`, the
 * new pod's start on the same node's clock the old holder renewed by, guards against a manager that kept
 * its identity: a renewal at or after it came from the new process, and that lease is left alone.
 */
export async function releaseLeasesHeldBy(
  objects: Pick<ObjectStore, 'get' | 'replace'>,
  names: readonly string[],
  holder: { readonly identity: string; readonly startedAt?: number },
  now: number,
): Promise<{ readonly name: string; readonly outcome: ReleaseOutcome }[]> {
  const outcomes: { name: string; outcome: ReleaseOutcome }[] = [];
  for (const name of names) {
    outcomes.push({ name, outcome: await releaseIfHeldBy(objects, name, holder, now) });
  }
  return outcomes;
}

function renewedSince(live: KubeObject, startedAt: number | undefined): boolean {
  if (startedAt === undefined) return false;
  const renewTime = leaseSpecOf(live).renewTime;
  const renewed = typeof renewTime === 'string' ? parseMicroTime(renewTime) : undefined;
  return renewed === undefined || renewed >= startedAt;
}

async function releaseIfHeldBy(
  objects: Pick<ObjectStore, 'get' | 'replace'>,
  name: string,
  holder: { readonly identity: string; readonly startedAt?: number },
  now: number,
): Promise<ReleaseOutcome> {
  try {
    const live = await objects.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: LEASE_NAMESPACE,
      name,
    });
    if (!live) return 'gone';
    if (leaseSpecOf(live).holderIdentity !== holder.identity || renewedSince(live, holder.startedAt))
      return 'changed';
    await objects.replace(releasedRecord(live, now));
    return 'released';
  } catch (error) {
    return outcomeOfFailedWrite(error);
  }
}

export interface LeaseHandoff {
  /** Takes one look's leases: releases those expired by now; returns when the next one expires. */
  look(leases: readonly LeaseFacts[]): Promise<number | undefined>;
}

/**
 * The poller's hand: tracks first sightings across looks and releases expired leases. Forbidden once (the
 * kubeconfig may not update leases in kube-system), it stops trying and says so: handovers then take the
 * standbys' own time, which the promise-kept gate still judges.
 */
export function createLeaseHandoff(options: {
  readonly objects: Pick<ObjectStore, 'get' | 'replace'>;
  readonly clock: Clock;
  readonly watched: ReadonlySet<string>;
  readonly notify?: (message: string) => void;
}): LeaseHandoff {
  let sightings: LeaseSightings = new Map();
  let allowed = true;
  return {
    look: async (leases) => {
      const now = options.clock.now();
      sightings = sightLeases(sightings, leases, options.watched, now);
      if (!allowed) return undefined;
      for (const expired of expiredSightings(sightings, now)) {
        const outcome = await releaseExpiredLease(options.objects, expired, options.clock.now());
        if (outcome === 'forbidden') {
          allowed = false;
          options.notify?.(
            `may not update leases in kube-system: expired leases are left for the standbys to notice ` +
              `(a handover can then take up to LeaseDuration + 2.2 × RetryPeriod); grant update on ` +
              `leases in kube-system to hand them over at once (docs/migrate.md#permissions)`,
          );
          return undefined;
        }
        if (outcome !== 'released') continue;
        const { namespace, name, holderIdentity, renewTime } = expired.lease;
        const quiet = ((now - expired.since) / 1000).toFixed(1);
        options.notify?.(
          `lease ${namespace}/${name}: holder ${holderIdentity ?? ''} last renewed ${renewTime ?? 'never'} ` +
            `and nothing changed for ${quiet} s (its lease duration): released it as client-go's ` +
            `ReleaseOnCancel would, so a standby takes it at its next try (at ${formatMicroTime(now) ?? ''})`,
        );
      }
      return nextExpiry(sightings, options.clock.now());
    },
  };
}
