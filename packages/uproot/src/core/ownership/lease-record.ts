/**
 * What the migration journal keeps of the managers' leases: each holder change of a watched Lease (the
 * migration lease or a manager's main lease), as seen by uproot's gates and its lease poller. A renewal by the
 * same holder adds no record; it only moves the holder's record's `lastRenewTime`, which is what a handover's
 * gap is measured from (promise-figures.ts). The journal's schema embeds this one
 * (src/engine/journal/journal-schema.ts); the inference reads it as LeaseObservations (profiled-inference.ts).
 */
import { z } from 'zod';
import { stepIdSchema } from '../model/plan-types.js';

/** Where the managers' leases live. */
export const LEASE_NAMESPACE = 'kube-system';

/** Seconds of clock skew tolerated between uproot and the managers when judging a lease's renewTime. */
export const LEASE_FRESHNESS_GRACE_SECONDS = 5;

export const leaseRecordSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  holder: z.string(),
  observedAt: z.string(),
  acquireTime: z.string().optional(),
  renewTime: z.string().optional(),
  leaseDurationSeconds: z.number().optional(),
  transitions: z.number().optional(),
  /**
   * The newest renewTime seen while this holder kept the lease (later looks than `observedAt`): the handover
   * to the next holder happened at most `next acquireTime - lastRenewTime` after its last renewal. Absent in
   * journals from before it was kept; `renewTime` then stands in (a longer, never shorter, gap).
   */
  lastRenewTime: z.string().optional(),
  /**
   * The newest look that saw this holding (RFC 3339, uproot's clock). Beside `lastRenewTime` it tells a
   * handover uproot watched (it saw the lease go stale) from one it did not (its last look still saw the holder
   * renewing, and the next look came only once another held the lease: a kill, a gap between runs). Absent in
   * journals from before it was kept; every handover is then read as watched.
   */
  lastSeenAt: z.string().optional(),
  /**
   * The step whose gate looked. It orders looks made at the same instant (virtual time runs a step's
   * requests in no time at all), which `observedAt` alone cannot; absent in journals from before it was kept.
   */
  step: stepIdSchema.optional(),
});
/** A holder change of a watched lease, as the journal keeps it (times RFC 3339). */
export type LeaseRecord = z.infer<typeof leaseRecordSchema>;

/** Whether `b` names the same holding as `a`: same lease, same holder, same acquisition. */
function sameHolding(a: LeaseRecord, b: LeaseRecord): boolean {
  return a.holder === b.holder && a.acquireTime === b.acquireTime;
}

/** The newest renewal a record knows of (RFC 3339), or undefined. */
export function lastRenewalOf(record: LeaseRecord): string | undefined {
  return record.lastRenewTime ?? record.renewTime;
}

/**
 * Adds looks at the leases to a timeline as the journal keeps it: a new holding (holder or acquireTime
 * changed) is a new record, placed by its `observedAt` (looks made between gates may reach the journal
 * after a gate's later ones); a renewal of a known holding moves that record's `lastRenewTime` forward, and
 * an earlier sighting moves its `observedAt` back. Pure; `changed` says whether the timeline differs.
 */
export function appendLeaseLooks(
  timeline: readonly LeaseRecord[],
  looks: readonly LeaseRecord[],
): { timeline: LeaseRecord[]; changed: boolean } {
  const out = [...timeline];
  let changed = false;
  const ordered = looks
    .map((look, i) => ({ look, i, at: Date.parse(look.observedAt) }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  for (const { look, at } of ordered) {
    const lease = (o: LeaseRecord): boolean => o.namespace === look.namespace && o.name === look.name;
    const index = lastIndexOf(out, (o) => lease(o) && sameHolding(o, look));
    if (index < 0) {
      // After every record seen no later than it, so equal times keep their order.
      out.splice(lastIndexOf(out, (o) => !(Date.parse(o.observedAt) > at)) + 1, 0, look);
      changed = true;
      continue;
    }
    const known = out[index]!;
    // A look may itself carry a last renewal (the poller's compacted looks).
    const renewed = lastRenewalOf(look);
    const last = lastRenewalOf(known);
    const later = renewed !== undefined && (!last || Date.parse(renewed) > Date.parse(last));
    const earlier = at < Date.parse(known.observedAt);
    // A compacted look carries its own newest sighting.
    const seen = look.lastSeenAt ?? look.observedAt;
    const seenLater = Date.parse(seen) > Date.parse(known.lastSeenAt ?? known.observedAt);
    if (!later && !earlier && !seenLater) continue;
    out[index] = {
      ...known,
      ...(later ? { lastRenewTime: renewed } : {}),
      ...(earlier ? { observedAt: look.observedAt } : {}),
      ...(seenLater ? { lastSeenAt: seen } : {}),
    };
    changed = true;
  }
  return { timeline: out, changed };
}

function lastIndexOf<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
