import { abortReason, type Clock } from './clock.js';

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly resolve: () => void;
  cancelled: boolean;
}

/** Yields to the event loop once, letting I/O callbacks and their promise continuations run. */
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Discrete-event time. Time moves only when the driver calls `advanceBy`/`advanceTo`/`runUntilIdle`, jumping
 * from one timer to the next, and never while tracked I/O is in flight. Timers due at the same instant fire
 * in the order they were set, so a run is reproducible.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers: Timer[] = [];
  private inFlight = 0;
  /** Resolved when no tracked I/O is left in flight (so settling waits instead of spinning). */
  private quietWaiters: (() => void)[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Number of timers waiting. */
  get pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const timer: Timer = {
        due: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        cancelled: false,
      };
      const onAbort = (): void => {
        timer.cancelled = true;
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.insert(timer);
    });
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.inFlight++;
    return work.finally(() => {
      this.inFlight--;
      if (this.inFlight === 0) for (const wake of this.quietWaiters.splice(0)) wake();
    });
  }

  /** Waits until no tracked I/O is in flight and every continuation it unblocked has run. */
  async settle(): Promise<void> {
    // Two quiet macrotasks in a row: continuations of the last resolved promise have had a chance to
    // register new timers or start new tracked I/O.
    let quiet = 0;
    while (quiet < 2) {
      // Work in flight (a request, another process holding the time still): wait for it, do not spin.
      if (this.inFlight > 0) await new Promise<void>((resolve) => this.quietWaiters.push(resolve));
      await macrotask();
      quiet = this.inFlight === 0 ? quiet + 1 : 0;
    }
  }

  /** Fires every timer due up to `target` in order, settling between them, and ends with now() === target. */
  async advanceTo(target: number): Promise<void> {
    await this.settle();
    for (;;) {
      const next = this.peek();
      if (!next || next.due > target) break;
      this.timers.shift();
      this.current = Math.max(this.current, next.due);
      next.resolve();
      await this.settle();
    }
    this.current = Math.max(this.current, target);
    await this.settle();
  }

  advanceBy(ms: number): Promise<void> {
    return this.advanceTo(this.current + ms);
  }

  /** Fires timers until none is left or `limitMs` of virtual time has passed. Returns the time reached. */
  async runUntilIdle(limitMs = Number.POSITIVE_INFINITY): Promise<number> {
    const end = this.current + limitMs;
    await this.settle();
    for (;;) {
      const next = this.peek();
      if (!next || next.due > end) break;
      this.timers.shift();
      this.current = Math.max(this.current, next.due);
      next.resolve();
      await this.settle();
    }
    return this.current;
  }

  private peek(): Timer | undefined {
    while (this.timers.length > 0 && this.timers[0]!.cancelled) this.timers.shift();
    return this.timers[0];
  }

  private insert(timer: Timer): void {
    // Binary search keeps insertion O(log n) for the comparison and stable for equal due times.
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.timers[mid]!;
      if (t.due < timer.due || (t.due === timer.due && t.seq < timer.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
  }
}
