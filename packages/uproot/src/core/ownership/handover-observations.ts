/**
 * The journal's lease records read for handovers: each holding counts from its acquireTime to its last
 * renewal seen (`lastRenewTime`), when a later holding follows. Between the two, nobody is known to hold
 * the lease: the old holder died or stepped down at most one RetryPeriod after its last renewal, and the new
 * one started at its acquisition, so `next acquireTime - lastRenewTime` is the longest the handover can
 * have left the lease's controllers without a leader, and `next acquireTime - (lastRenewTime + RetryPeriod/2)`
 * is within RetryPeriod/2 of the truth: the figure reported and judged. The overlap judgement reads the same records the other
 * way round (profiled-inference.ts `observationsFromRecords`: a holder lives until another is seen).
 */
import type { LeaseObservation } from '../../election/model/index.js';
import type { TimeSpan } from './intervals.js';
import { LEASE_NAMESPACE, lastRenewalOf, type LeaseRecord } from './lease-record.js';

const time = (text: string | undefined): number => (text === undefined ? NaN : Date.parse(text));
const or = (a: number, b: number): number => (Number.isNaN(a) ? b : a);

/**
 * Half the managers' RetryPeriod (upstream default 2 s): a holder renews every RetryPeriod without jitter
 * (client-go leaderelection.go renew, wait.Until), so one that stopped did so within one RetryPeriod after its
 * last renewal. The handover is read from the middle of that span, so the figure is within RetryPeriod/2 of
 * the truth either way (the twin's ledger checks it; decision 0021), where reading from the last renewal
 * would overstate every handover by up to a whole RetryPeriod.
 */
export const HALF_RETRY_PERIOD_MS = 1_000;

/** The records of each watched lease in kube-system, in the order uproot saw them. */
function recordsByLease(timeline: readonly LeaseRecord[]): Map<string, LeaseRecord[]> {
  const byLease = new Map<string, LeaseRecord[]>();
  for (const r of timeline) {
    if (r.namespace !== LEASE_NAMESPACE || Number.isNaN(Date.parse(r.observedAt))) continue;
    byLease.set(r.name, [...(byLease.get(r.name) ?? []), r]);
  }
  for (const records of byLease.values())
    records.sort((a, b) => Date.parse(a.observedAt) - Date.parse(b.observedAt));
  return byLease;
}

/**
 * The records as observations on the holders' own clock: a start at each acquisition, an end half a
 * RetryPeriod after each last renewal (never past the next acquisition).
 */
export function handoverObservations(
  timeline: readonly LeaseRecord[],
  halfRetryPeriodMs: number = HALF_RETRY_PERIOD_MS,
): LeaseObservation[] {
  const byLease = recordsByLease(timeline);
  const out: LeaseObservation[] = [];
  let sequence = 0;
  const look = (at: number, name: string, holder: string): void => {
    out.push({
      time: at,
      name,
      namespace: LEASE_NAMESPACE,
      present: true,
      holderIdentity: holder,
      leaseDurationSeconds: Infinity,
      // Each one is news to leaseHolderTimeline, which skips a look repeating the one before.
      resourceVersion: `handover-${sequence++}`,
    });
  };
  for (const [name, sorted] of byLease) {
    const startOf = (r: LeaseRecord): number => or(time(r.acquireTime), Date.parse(r.observedAt));
    sorted.forEach((r, i) => {
      const start = startOf(r);
      if (r.holder !== '') look(start, name, r.holder);
      const next = sorted[i + 1];
      if (!next) return;
      const nextStart = startOf(next);
      const lastRenewal = time(lastRenewalOf(r));
      const end = Number.isNaN(lastRenewal) ? Date.parse(next.observedAt) : lastRenewal + halfRetryPeriodMs;
      // A holding seen only at its acquisition still held the lease then: 1 ms, so the inference keeps it
      // (an empty span would make its controllers look not yet running, and hide the gap that follows).
      if (nextStart > start) look(Math.min(Math.max(start + 1, end), nextStart), name, '');
    });
  }
  // Stable: an end and the next start at the same instant stay in that order.
  return out.sort((a, b) => a.time - b.time);
}

/** A RetryPeriod (upstream default 2 s): a live holder renews at least this often. */
const RETRY_PERIOD_MS = 2 * HALF_RETRY_PERIOD_MS;

/**
 * The handovers uproot did not watch, per lease, as spans from the old holder's last renewal to the new
 * holder's acquisition. uproot's last look at the old holding still saw it renewing (within a RetryPeriod of
 * its last renewal), and its next look at the lease came more than two RetryPeriods later, when another held
 * it: no uproot process was looking (a kill, the time between two runs). The holder may have renewed all
 * through that span, so `acquisition - last renewal` only bounds the gap from above: it is reported, not
 * judged. A handover uproot watched saw the lease go stale, or the next holder soon after the last renewal.
 */
export function unobservedHandovers(timeline: readonly LeaseRecord[]): TimeSpan[] {
  const byLease = recordsByLease(timeline);
  const out: TimeSpan[] = [];
  for (const sorted of byLease.values()) {
    sorted.forEach((r, i) => {
      const next = sorted[i + 1];
      const lastRenewal = time(lastRenewalOf(r));
      const lastSeen = time(r.lastSeenAt);
      if (!next || r.holder === '' || Number.isNaN(lastRenewal) || Number.isNaN(lastSeen)) return;
      const stillRenewing = lastSeen - lastRenewal < RETRY_PERIOD_MS;
      const unwatched = Date.parse(next.observedAt) - lastSeen > 2 * RETRY_PERIOD_MS;
      if (stillRenewing && unwatched)
        out.push({ from: lastRenewal, to: or(time(next.acquireTime), Date.parse(next.observedAt)) });
    });
  }
  return out.sort((a, b) => a.from - b.from);
}
