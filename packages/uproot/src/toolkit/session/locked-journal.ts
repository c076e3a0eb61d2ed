/**
 * What every writing command starts with: the migration lock taken (renewed in the background, the run
 * stopped if another run takes it), and the journal store (with its local mirror) ready.
 */
import { hostname } from 'node:os';
import type { Clock, Random } from '../../clock/index.js';
import { ConfigMapJournalStore } from '../../adapters/kube/journal-store.js';
import { MigrationLock } from '../../adapters/kube/migration-lock.js';
import type { LocalProcesses, LockTakeover } from '../../engine/lock/holder-process.js';
import { JournalMirror } from '../../adapters/files/journal-mirror.js';
import type { JournalLocation } from '../../engine/journal/journal-schema.js';
import type { JournalStore, MigrationLease, ObjectStore } from '../../engine/ports.js';
import { lockNameFor } from '../../engine/journal/journal-location.js';

export interface LockedJournal {
  readonly store: JournalStore;
  readonly lock: MigrationLease;
  /** Aborted on the caller's signal (Ctrl-C) or when the lock is lost. */
  readonly signal: AbortSignal;
  /** The reason the lock was lost, if it was. */
  lockLost(): Error | undefined;
  readonly tookOverFrom?: string;
  /** How the lock was taken from a previous holder (its lease expired, or its process is gone). */
  readonly takeover?: LockTakeover;
  release(): Promise<void>;
}

/** A run id: which machine, and a random part so two runs there differ. */
export function newRunId(random: Random): string {
  const suffix = Math.floor(random() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
  return `${hostname()
    .replace(/[^A-Za-z0-9.-]/g, '-')
    .slice(0, 40)}-${suffix}`;
}

export async function openLockedJournal(options: {
  readonly objects: ObjectStore;
  readonly location: JournalLocation;
  readonly runId: string;
  readonly clock: Clock;
  readonly stateDir: string;
  readonly purpose: string;
  readonly signal?: AbortSignal;
  /** This machine's processes, so a lock whose holder was killed here is taken over at once. */
  readonly processes?: LocalProcesses;
}): Promise<LockedJournal> {
  const lock = new MigrationLock(options.objects, {
    namespace: options.location.namespace,
    name: lockNameFor(options.location),
    holder: options.runId,
    clock: options.clock,
    purpose: options.purpose,
    ...(options.processes ? { processes: options.processes } : {}),
  });
  const { tookOverFrom, takeover } = await lock.acquire();
  const lost = new AbortController();
  let lostReason: Error | undefined;
  lock.startRenewing((error) => {
    lostReason = error;
    lost.abort(error);
  });
  const store = new ConfigMapJournalStore(options.objects, options.location, (journal) => {
    new JournalMirror(options.stateDir, journal.cluster.name).write(journal);
  });
  const signal = options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal;
  return {
    store,
    lock,
    signal,
    lockLost: () => lostReason,
    ...(tookOverFrom ? { tookOverFrom } : {}),
    ...(takeover ? { takeover } : {}),
    release: () => lock.release(),
  };
}
