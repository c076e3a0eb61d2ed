/**
 * Runs a few electors on one memory lease in virtual time under a schedule of crashes, pauses, clock skew,
 * API errors and network delays, and measures when each one believed it led. Used by the property test.
 */
import { seededRandom, VirtualClock } from '../../clock/index.js';
import type { ElectionTimings } from '../elector/election-config.js';
import { LeaderElector } from '../elector/leader-elector.js';
import { MemoryLeaseStore, type LeaseFault } from '../lease-lock/memory-lease-store.js';
import { gatedLeaseLock } from '../simulation/gated-lease-lock.js';
import { PausableClock } from '../simulation/pausable-clock.js';
import { SkewedClock } from '../simulation/skewed-clock.js';

export interface ChaosSchedule {
  readonly timings: ElectionTimings;
  /** One entry per process slot: its clock rate (0.99–1.01) and when it first starts (ms after t0). */
  readonly electors: readonly { readonly rate: number; readonly startAt: number }[];
  /** The process in `slot` dies at `at` and restarts (new identity) after `downtime`. */
  readonly crashes: readonly { readonly slot: number; readonly at: number; readonly downtime: number }[];
  /** The process in `slot` freezes from `at` for `duration`. */
  readonly pauses: readonly { readonly slot: number; readonly at: number; readonly duration: number }[];
  /** During the window each request fails with `kind` with the given probability. */
  readonly apiErrors: readonly {
    readonly at: number;
    readonly duration: number;
    readonly probability: number;
    readonly kind: 'Unavailable' | 'Conflict' | 'Timeout';
  }[];
  /** During the window requests of `slot` wait before reaching the store and before their answer returns. */
  readonly delays: readonly {
    readonly slot: number;
    readonly at: number;
    readonly duration: number;
    readonly requestDelayMs: number;
    readonly responseDelayMs: number;
  }[];
  /** All faults lie within [0, horizonMs); then `quietMs` without faults. */
  readonly horizonMs: number;
  readonly quietMs: number;
  readonly seed: number;
}

export interface BeliefSegment {
  readonly identity: string;
  readonly from: number;
  readonly to: number;
}

export interface ChaosResult {
  /** Intervals (ms after t0) in which a process believed it led and was not frozen. */
  readonly segments: readonly BeliefSegment[];
  /** The largest total time any two different identities both believed they led. */
  readonly maxPairOverlapMs: number;
  /** Identities leading at the end, and the holder in the store. */
  readonly leadersAtEnd: readonly string[];
  readonly holderAtEnd: string;
  readonly liveAtEnd: number;
}

/** Restart delay after a process lost its lease and exited (the kubelet restarting it). */
const RESTART_AFTER_LOSS_MS = 5_000;

export async function runChaos(schedule: ChaosSchedule): Promise<ChaosResult> {
  const world = new ChaosWorld(schedule);
  const end = schedule.horizonMs + schedule.quietMs;
  world.injectLeaseFaults();
  scheduleEvents(world);
  await world.shared.advanceTo(world.t0 + end);

  const leadersAtEnd = world.beliefs
    .filter((b) => b.to === undefined && !b.process.dead)
    .map((b) => b.identity);
  const holderAtEnd = world.store.peek('kube-system', 'chaos')?.spec?.holderIdentity ?? '';
  const liveAtEnd = world.current.filter((p) => p && !p.dead).length;

  // Close everything and let the electors finish.
  for (let slot = 0; slot < world.current.length; slot++) world.crash(slot);
  await world.shared.runUntilIdle(60_000);

  const segments: BeliefSegment[] = [];
  for (const b of world.beliefs) {
    const to = Math.min(b.to ?? end, end);
    segments.push(
      ...subtract({ from: b.from, to }, b.process.pauses).map((s) => ({ identity: b.identity, ...s })),
    );
  }
  return { segments, maxPairOverlapMs: maxPairOverlap(segments), leadersAtEnd, holderAtEnd, liveAtEnd };
}

/** One incarnation of a process slot: its elector, clock and the spans it was frozen. */
interface Process {
  readonly slot: number;
  readonly identity: string;
  readonly clock: PausableClock;
  readonly abort: AbortController;
  readonly elector: LeaderElector;
  readonly pauses: { from: number; to: number }[];
  dead: boolean;
}

/** The shared lease and clock, the processes in each slot, and when each believed it led. */
class ChaosWorld {
  readonly t0 = Date.UTC(2026, 0, 1);
  readonly shared = new VirtualClock(this.t0);
  readonly store = new MemoryLeaseStore({ clock: this.shared });
  readonly current: (Process | undefined)[];
  readonly beliefs: { identity: string; process: Process; from: number; to: number | undefined }[] = [];
  private readonly incarnations: number[];
  private readonly slotOf = new Map<string, number>();

  constructor(readonly schedule: ChaosSchedule) {
    this.current = schedule.electors.map(() => undefined);
    this.incarnations = schedule.electors.map(() => 0);
  }

  /** Time since t0 on the shared clock. */
  rel(): number {
    return this.shared.now() - this.t0;
  }

  /** Runs `action` after `ms` of virtual time. */
  at(ms: number, action: () => void): void {
    void this.shared.sleep(ms).then(action);
  }

  /** The schedule's API errors and delays, on every request to the lease store within the horizon. */
  injectLeaseFaults(): void {
    const { schedule } = this;
    const faultRandom = seededRandom(schedule.seed ^ 0x5bd1e995);
    this.store.setFaults((req) => {
      const at = this.rel();
      if (at >= schedule.horizonMs) return undefined;
      const fault: { -readonly [K in keyof LeaseFault]: LeaseFault[K] } = {};
      const slot = req.identity === undefined ? undefined : this.slotOf.get(req.identity);
      for (const d of schedule.delays) {
        if (d.slot === slot && at >= d.at && at < d.at + d.duration) {
          fault.delayMs = Math.max(fault.delayMs ?? 0, d.requestDelayMs);
          fault.responseDelayMs = Math.max(fault.responseDelayMs ?? 0, d.responseDelayMs);
        }
      }
      for (const e of schedule.apiErrors) {
        if (at >= e.at && at < e.at + e.duration && faultRandom() < e.probability) fault.error = e.kind;
      }
      return fault.delayMs || fault.responseDelayMs || fault.error ? fault : undefined;
    });
  }

  /** Starts a new incarnation in the slot (unless one runs); one that loses the lease is restarted. */
  start(slot: number): void {
    const { schedule, shared, t0 } = this;
    if (this.current[slot] && !this.current[slot]!.dead) return;
    const incarnation = this.incarnations[slot]!++;
    const identity = `node-${slot}_${incarnation}`;
    this.slotOf.set(identity, slot);
    const clock = new PausableClock(new SkewedClock(shared, schedule.electors[slot]!.rate, t0));
    const abort = new AbortController();
    const lock = gatedLeaseLock(
      this.store.lock({ namespace: 'kube-system', name: 'chaos', identity }),
      clock,
    );
    const process: Process = {
      slot,
      identity,
      clock,
      abort,
      pauses: [],
      dead: false,
      elector: new LeaderElector({
        lock,
        clock,
        ...schedule.timings,
        random: seededRandom(schedule.seed * 31 + slot * 1009 + incarnation),
        callbacks: {
          onStartedLeading: (signal) => this.believe(identity, process, signal),
          onStoppedLeading: () => undefined,
        },
      }),
    };
    this.current[slot] = process;
    void process.elector.run(abort.signal).then(() => {
      if (process.dead) return;
      // Lost the lease: the manager exits and is restarted.
      process.dead = true;
      void shared.sleep(RESTART_AFTER_LOSS_MS).then(() => {
        if (this.current[slot] === process) this.start(slot);
      });
    });
  }

  /** A belief that the process leads, from now until its leading signal aborts. */
  private believe(identity: string, process: Process, signal: AbortSignal): void {
    const belief = { identity, process, from: this.rel(), to: undefined as number | undefined };
    this.beliefs.push(belief);
    const stop = (): void => {
      belief.to ??= this.rel();
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  }

  crash(slot: number): void {
    const process = this.current[slot];
    if (!process || process.dead) return;
    process.dead = true;
    this.endPause(process);
    process.clock.resume();
    process.abort.abort(new Error('crashed'));
  }

  endPause(process: Process): void {
    const open = process.pauses.find((p) => p.to === Number.POSITIVE_INFINITY);
    if (open) open.to = this.rel();
  }
}

/** The schedule's starts, crashes (with restarts after their downtime) and pauses, on the shared clock. */
function scheduleEvents(world: ChaosWorld): void {
  const { schedule, current } = world;
  schedule.electors.forEach((e, slot) => world.at(e.startAt, () => world.start(slot)));
  for (const c of schedule.crashes) {
    world.at(c.at, () => {
      const victim = current[c.slot];
      world.crash(c.slot);
      world.at(c.downtime, () => {
        if (current[c.slot] === victim) world.start(c.slot);
      });
    });
  }
  for (const p of schedule.pauses) {
    world.at(p.at, () => {
      const process = current[p.slot];
      if (!process || process.dead || process.clock.isPaused) return;
      process.pauses.push({ from: world.rel(), to: Number.POSITIVE_INFINITY });
      process.clock.pause();
      world.at(p.duration, () => {
        if (process.dead || !process.clock.isPaused) return;
        world.endPause(process);
        process.clock.resume();
      });
    });
  }
}

function subtract(
  span: { from: number; to: number },
  holes: readonly { from: number; to: number }[],
): { from: number; to: number }[] {
  let pieces = [span];
  for (const h of holes) {
    pieces = pieces.flatMap((p) => {
      if (h.to <= p.from || h.from >= p.to) return [p];
      const out: { from: number; to: number }[] = [];
      if (h.from > p.from) out.push({ from: p.from, to: h.from });
      if (h.to < p.to) out.push({ from: h.to, to: p.to });
      return out;
    });
  }
  return pieces.filter((p) => p.to > p.from);
}

function maxPairOverlap(segments: readonly BeliefSegment[]): number {
  const byIdentity = new Map<string, BeliefSegment[]>();
  for (const s of segments) byIdentity.set(s.identity, [...(byIdentity.get(s.identity) ?? []), s]);
  const ids = [...byIdentity.keys()];
  let max = 0;
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      let total = 0;
      for (const a of byIdentity.get(ids[i]!)!) {
        for (const b of byIdentity.get(ids[j]!)!)
          total += Math.max(0, Math.min(a.to, b.to) - Math.max(a.from, b.from));
      }
      max = Math.max(max, total);
    }
  }
  return max;
}
