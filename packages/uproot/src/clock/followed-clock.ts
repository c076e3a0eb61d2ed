import { abortReason, type Clock } from './clock.js';

/** Reads the followed clock's time (milliseconds since the epoch). Rejects when it cannot be read. */
export type ClockSample = () => Promise<number>;

/**
 * Runs `fn` after `ms` real milliseconds and returns a cancel function. `keepAlive` false lets the process
 * exit while only this timer is pending (a poll with nobody waiting on it must not hold the CLI open).
 */
export type PollTimer = (fn: () => void, ms: number, keepAlive: boolean) => () => void;

export interface FollowedClockOptions {
  /** Real milliseconds between samples (default 20). */
  readonly pollMs?: number;
  /** Consecutive failed samples after which pending and later sleeps reject (default 250, about 5 s). */
  readonly lostAfter?: number;
  /** The error sleeps reject with once the clock is lost (the caller's typed error). */
  readonly lost: (cause: unknown) => Error;
  readonly timer?: PollTimer;
}

interface Sleeper {
  readonly deadline: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const realTimer: PollTimer = (fn, ms, keepAlive) => {
  const handle = setTimeout(fn, ms);
  if (!keepAlive) handle.unref();
  return () => clearTimeout(handle);
};

/**
 * Another process's clock, followed by sampling it: a rehearsal's twin that runs sped up (`uproot sandbox up
 * --time-scale`) or paced (the crash campaign), so that uproot's lease looks, handovers and gate deadlines
 * happen at the twin's pace and not 10 or 40 times too seldom (decision 0034).
 *
 * `now()` is the latest sample, never an extrapolation: a twin that lags behind its nominal pace (it does
 * not advance while its managers' requests are in flight) must never look further on than it is, or uproot
 * would judge a lease expired that its holder still renews. The price is lateness of at most one poll plus
 * one request, under a second of twin time at 40×.
 */
export class FollowedClock implements Clock {
  private latest: number;
  private readonly sleepers = new Set<Sleeper>();
  private readonly pollMs: number;
  private readonly lostAfter: number;
  private readonly timer: PollTimer;
  private failures = 0;
  private lostError: Error | undefined;
  /** The next poll's timer, and whether it holds the process open. */
  private pending: { readonly cancel: () => void; readonly keepAlive: boolean } | undefined;
  private polling = false;
  private closed = false;

  private constructor(
    private readonly sample: ClockSample,
    first: number,
    private readonly options: FollowedClockOptions,
  ) {
    this.latest = first;
    this.pollMs = options.pollMs ?? 20;
    this.lostAfter = options.lostAfter ?? 250;
    this.timer = options.timer ?? realTimer;
  }

  /** Takes a first sample (its rejection is the caller's to report) and starts following. */
  static async follow(sample: ClockSample, options: FollowedClockOptions): Promise<FollowedClock> {
    const clock = new FollowedClock(sample, await sample(), options);
    clock.schedule();
    return clock;
  }

  now(): number {
    return this.latest;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.lostError) return Promise.reject(this.lostError);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.sleepers.delete(sleeper);
        reject(abortReason(signal!));
      };
      const sleeper: Sleeper = {
        deadline: this.latest + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      this.sleepers.add(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
      // A poll pending without keep-alive (nobody was waiting) must now hold the process open.
      if (this.pending && !this.pending.keepAlive) this.schedule();
    });
  }

  track<T>(work: Promise<T>): Promise<T> {
    return work;
  }

  /** Stops following; pending sleeps never resolve after this (call it when the command is done). */
  close(): void {
    this.closed = true;
    this.pending?.cancel();
    this.pending = undefined;
  }

  private schedule(): void {
    if (this.closed || this.polling) return;
    this.pending?.cancel();
    const keepAlive = this.sleepers.size > 0;
    this.pending = { cancel: this.timer(() => void this.poll(), this.pollMs, keepAlive), keepAlive };
  }

  private async poll(): Promise<void> {
    this.pending = undefined;
    this.polling = true;
    try {
      const now = await this.sample();
      this.failures = 0;
      // Monotone: a sample that arrives out of order never moves time back.
      if (now > this.latest) this.latest = now;
      for (const s of this.sleepers) {
        if (s.deadline > this.latest) continue;
        this.sleepers.delete(s);
        s.resolve();
      }
    } catch (error) {
      this.failures++;
      if (this.failures >= this.lostAfter) {
        this.lostError = this.options.lost(error);
        for (const s of this.sleepers) s.reject(this.lostError);
        this.sleepers.clear();
        this.polling = false;
        return;
      }
    }
    this.polling = false;
    this.schedule();
  }
}
