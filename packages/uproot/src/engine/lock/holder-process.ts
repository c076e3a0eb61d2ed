/**
 * Which process holds the migration lock, so that the next run on the same machine can tell a holder that
 * was killed (SIGKILL, a closed terminal, an OOM kill) from one that still works, and take over at once
 * instead of waiting for the lease to expire. The lock's Lease carries the holder's process beside its
 * holderIdentity; reading the machine's process table is the adapters' job, behind `LocalProcesses`.
 */

/** A process, named so that a pid reused by another process (or after a reboot) does not pass for it. */
export interface HolderProcess {
  readonly hostname: string;
  readonly pid: number;
  /**
   * What makes the pid unique on its machine: the boot id, the pid namespace and the process's start time
   * (`/proc/<pid>/stat` starttime), joined by `/`. Opaque outside the adapter that wrote it.
   */
  readonly start: string;
}

/** What this machine can tell about a lock holder's process. */
export type HolderProcessState =
  /** It ran here and runs no more (or its pid now belongs to another process). */
  | 'gone'
  | 'running'
  /** Another machine (or pid namespace): nothing to tell, wait for the lease. */
  | 'elsewhere';

/** The port the lock uses to look at processes on this machine. */
export interface LocalProcesses {
  /** This process. */
  self(): HolderProcess;
  stateOf(holder: HolderProcess): HolderProcessState;
}

/** The Lease annotation the holder's process is written to. */
export const HOLDER_PROCESS_ANNOTATION = 'uproot.dev/holder-process';

export function encodeHolderProcess(p: HolderProcess): string {
  return JSON.stringify({ hostname: p.hostname, pid: p.pid, start: p.start });
}

/** The holder's process from the annotation, or undefined when absent or not one (an older uproot wrote it). */
export function decodeHolderProcess(text: string | undefined): HolderProcess | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<HolderProcess>;
    if (typeof v.hostname === 'string' && Number.isInteger(v.pid) && typeof v.start === 'string' && v.start)
      return { hostname: v.hostname, pid: v.pid!, start: v.start };
  } catch {
    // not ours
  }
  return undefined;
}

/** How the lock was taken from a previous holder. */
export interface LockTakeover {
  readonly from: string;
  readonly because: 'expired' | 'holder-gone';
  /** The previous holder's process, when the Lease named it. */
  readonly process?: HolderProcess;
}

/** What a run says when it took the lock from a previous holder. */
export function takeoverNote(takeover: LockTakeover): string {
  return takeover.because === 'holder-gone' && takeover.process
    ? `took over the migration lock from ${takeover.from} at once: its process ${takeover.process.pid} on this machine (${takeover.process.hostname}) is gone, so no run holds it`
    : `took over the migration lock from ${takeover.from}: its lease had expired (that run stopped renewing it)`;
}
