/**
 * Looks at the managers' leases every second for the whole run, between gates as well as during them, so
 * the journal knows each holder's last renewal before a handover (what a gap is measured from, within one
 * look). One list of kube-system leases per look, the read the gates make (GateReader.leases); the election
 * library's watchLeases reads each lease on its own and keeps its own observation type. The looks are kept
 * in memory until the engine drains them into the journal at its next write (gate-check.ts), compacted as
 * the journal keeps them (appendLeaseLooks), so memory stays one record per holding.
 */
import type { Clock } from '../../clock/index.js';
import { appendLeaseLooks, LEASE_NAMESPACE } from '../../core/ownership/index.js';
import type { LeaseLooks } from '../gate-check.js';
import type { Journal, LeaseRecord } from '../journal/journal-schema.js';
import { appendLeaseRecords } from '../journal/journal-transitions.js';
import type { GateReader } from './gate-facts.js';
import { leaseRecordsOf } from './gate-runner.js';
import type { LeaseHandoff } from './lease-handoff.js';

export interface LeasePoller extends LeaseLooks {
  /** Stops polling; resolves when the last look has ended. */
  stop(): Promise<void>;
}

export const LEASE_POLL_INTERVAL_MS = 1_000;

export function startLeasePoller(options: {
  readonly reader: Pick<GateReader, 'leases'>;
  readonly clock: Clock;
  readonly watched: ReadonlySet<string>;
  readonly intervalMs?: number;
  readonly signal?: AbortSignal;
  /** Releases leases that expired (lease-handoff.ts); without it the looks only read. */
  readonly handoff?: LeaseHandoff;
}): LeasePoller {
  const stopper = new AbortController();
  const stopOnAbort = (): void => stopper.abort();
  options.signal?.addEventListener('abort', stopOnAbort, { once: true });
  let pending: LeaseRecord[] = [];
  const interval = options.intervalMs ?? LEASE_POLL_INTERVAL_MS;
  const loop = async (): Promise<void> => {
    while (!stopper.signal.aborted) {
      let wakeAt: number | undefined;
      try {
        const now = options.clock.now();
        const leases = await options.reader.leases(LEASE_NAMESPACE);
        pending = appendLeaseLooks(pending, leaseRecordsOf(leases, options.watched, now)).timeline;
        wakeAt = await options.handoff?.look(leases);
      } catch {
        // Best effort, like the gates' looks: a failed read only leaves a longer (never shorter) gap.
      }
      // The next look at the next interval, or exactly when a lease expires if that comes first.
      const untilExpiry = wakeAt === undefined ? interval : wakeAt - options.clock.now();
      try {
        await options.clock.sleep(Math.max(1, Math.min(interval, untilExpiry)), stopper.signal);
      } catch {
        return;
      }
    }
  };
  const done = loop();
  return {
    drain: () => {
      const out = pending;
      pending = [];
      return out;
    },
    stop: async () => {
      stopper.abort();
      options.signal?.removeEventListener('abort', stopOnAbort);
      await done;
    },
  };
}

/** Where a run's journal is kept (the toolkit's ConfigMapJournalStore). */
export interface LookStore {
  load(): Promise<Journal | undefined>;
  save(journal: Journal): Promise<Journal>;
}

/**
 * Stops the poller and keeps the looks no gate drained in the stored journal. A run that stops for a person
 * or fails in a change has no gate left to drain them; on RKE the switch's `rke up` rolls the managers then,
 * and without these looks the journal misses the old holder's last renewals and any standby that held the
 * lease in between (so the promise figures read one long gap). Best effort, like every look.
 */
export async function stopKeepingLooks(poller: LeasePoller, store: LookStore, clock: Clock): Promise<void> {
  await poller.stop();
  const left = poller.drain();
  if (left.length === 0) return;
  try {
    const latest = await store.load();
    if (latest) await store.save(appendLeaseRecords(latest, left, clock.now()));
  } catch {
    // A journal that cannot be written now has already failed the run; the looks only add detail.
  }
}
