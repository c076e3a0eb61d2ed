import type { Clock } from '../../clock/index.js';
import { isConflict, isNotFound } from '../errors.js';
import type { LeaseLock } from '../lease-lock/lease-lock.js';
import { EMPTY_RECORD, type LeaderElectionRecord } from '../lease-lock/lease-record.js';
import {
  JITTER_FACTOR,
  validateElectionConfig,
  type ElectionLogLevel,
  type LeaderCallbacks,
  type LeaderElectionConfig,
} from './election-config.js';

/** What an elector currently believes, for status pages, watchers and tests. */
export interface ElectorSnapshot {
  readonly identity: string;
  readonly lease: string;
  readonly observedRecord: LeaderElectionRecord;
  /** Local clock time at which the observed record was first seen (or written by us); -Infinity if never. */
  readonly observedTime: number;
  /** True between onStartedLeading and the abort of its signal. */
  readonly leading: boolean;
}

class RenewDeadlineExceeded extends Error {
  constructor() {
    super('renew deadline exceeded');
  }
}

/** Reason for aborting internal timers: a shared object, since a bare abort() builds a DOMException each time. */
const TIMER_DONE = new Error('timer no longer needed');
const STOPPED_LEADING = new Error('stopped leading');

/**
 * client-go's LeaderElector (tools/leaderelection), Lease lock, non-coordinated mode. It acts only on time
 * stamps taken on its own clock: a record counts as fresh from the moment this elector first saw it change,
 * for the holder's written leaseDurationSeconds; the lease's renewTime is never trusted. See docs/election.md.
 */
export class LeaderElector {
  private readonly config: LeaderElectionConfig;
  private readonly lock: LeaseLock;
  private readonly callbacks: LeaderCallbacks;
  private readonly clock: Clock;
  private readonly random: () => number;
  private observedRecord: LeaderElectionRecord = EMPTY_RECORD;
  private observedRawRecord: string | undefined;
  private observedTime = Number.NEGATIVE_INFINITY;
  private reportedLeader = '';
  private leading = false;

  /** Throws ElectionConfigError with client-go's message when the configuration is invalid. */
  constructor(config: LeaderElectionConfig) {
    validateElectionConfig(config);
    this.config = config;
    this.lock = config.lock!;
    this.callbacks = config.callbacks as LeaderCallbacks;
    this.clock = config.clock;
    this.random = config.random ?? Math.random;
  }

  get identity(): string {
    return this.lock.identity;
  }

  /** True when the last observed record names this elector as holder. */
  isLeader(): boolean {
    return this.observedRecord.holderIdentity === this.lock.identity;
  }

  /** The last observed holder ("" when none observed yet). */
  getLeader(): string {
    return this.observedRecord.holderIdentity;
  }

  snapshot(): ElectorSnapshot {
    return {
      identity: this.lock.identity,
      lease: this.lock.describe(),
      observedRecord: this.observedRecord,
      observedTime: this.observedTime,
      leading: this.leading,
    };
  }

  /**
   * Campaigns until this elector leads, leads until a renewal misses the renew deadline or `signal` aborts,
   * then returns. onStoppedLeading runs on the way out in every case, even if leadership was never won.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const follow = (): void => leading.abort(signal.reason);
      if (signal.aborted) follow();
      signal.addEventListener('abort', follow, { once: true });
      try {
        this.startLeading(leading.signal);
        await this.renew(leading);
      } finally {
        this.leading = false;
        leading.abort(STOPPED_LEADING);
        signal.removeEventListener('abort', follow);
      }
    } finally {
      this.callbacks.onStoppedLeading();
    }
  }

  /**
   * One attempt to acquire or renew (client-go tryAcquireOrRenew, 1.30+ with the optimistic fast path).
   * Public because upstream's tests drive it directly; run() is the normal entry.
   */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    let desired: LeaderElectionRecord = {
      holderIdentity: this.lock.identity,
      leaseDurationSeconds: Math.trunc(this.config.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // 1. Fast path: the leader updates with its cached lease, assuming nobody else wrote since.
    if (this.isLeader() && this.isLeaseValid(now)) {
      const old = this.observedRecord;
      const renewal = { ...desired, acquireTime: old.acquireTime, leaderTransitions: old.leaderTransitions };
      try {
        await this.lock.update(renewal, signal);
        this.setObservedRecord(renewal);
        return true;
      } catch (error) {
        this.log('error', 'failed to update lock optimistically, falling back to slow path', error);
      }
    }

    // 2. Get, or create when absent.
    let current: { record: LeaderElectionRecord; raw: string };
    try {
      current = await this.lock.get(signal);
    } catch (error) {
      if (!isNotFound(error)) {
        this.log('error', 'error retrieving resource lock', error);
        return false;
      }
      try {
        await this.lock.create(desired, signal);
      } catch (createError) {
        this.log('error', 'error initially creating leader election record', createError);
        return false;
      }
      this.setObservedRecord(desired);
      return true;
    }

    // 3. A record that differs from the last one seen restarts the clock on it.
    if (this.observedRawRecord !== current.raw) {
      this.setObservedRecord(current.record);
      this.observedRawRecord = current.raw;
    }
    if (current.record.holderIdentity !== '' && this.isLeaseValid(now) && !this.isLeader()) {
      this.log('debug', `lock is held by ${current.record.holderIdentity} and has not yet expired`);
      return false;
    }

    // 4. Take over or renew: keep acquireTime and transitions when renewing, count a transition otherwise.
    desired = this.isLeader()
      ? {
          ...desired,
          acquireTime: current.record.acquireTime,
          leaderTransitions: current.record.leaderTransitions,
        }
      : { ...desired, leaderTransitions: current.record.leaderTransitions + 1 };
    try {
      await this.lock.update(desired, signal);
    } catch (error) {
      this.log('error', 'failed to update lock', error);
      return false;
    }
    this.setObservedRecord(desired);
    return true;
  }

  /**
   * Gives the lease up if this elector holds it: holder "", leaseDurationSeconds 1, transitions kept, so any
   * candidate may take it at once. Re-reads first and retries on a conflict, within one renew deadline.
   */
  async release(): Promise<boolean> {
    if (!this.isLeader()) return true;
    const deadline = new AbortController();
    const timer = new AbortController();
    this.clock.sleep(this.config.renewDeadlineMs, timer.signal).then(
      () => deadline.abort(new RenewDeadlineExceeded()),
      () => undefined,
    );
    try {
      for (;;) {
        let current: { record: LeaderElectionRecord };
        try {
          current = await this.lock.get(deadline.signal);
        } catch (error) {
          this.log('error', 'failed to release lock', error);
          return false;
        }
        if (current.record.holderIdentity !== this.lock.identity) return true;
        const now = this.clock.now();
        const released: LeaderElectionRecord = {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaderTransitions: current.record.leaderTransitions,
        };
        try {
          await this.lock.update(released, deadline.signal);
          this.setObservedRecord(released);
          return true;
        } catch (error) {
          if (isConflict(error) && !deadline.signal.aborted) continue;
          this.log('error', 'failed to release lock', error);
          return false;
        }
      }
    } finally {
      timer.abort(TIMER_DONE);
    }
  }

  /**
   * Test support: sets what this elector believes it has seen, as upstream's tests set observedRecord,
   * observedTime and observedRawRecord directly.
   */
  primeObservation(record: LeaderElectionRecord, observedTime: number, raw?: string): void {
    this.observedRecord = record;
    this.observedTime = observedTime;
    this.observedRawRecord = raw;
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log('info', 'attempting to acquire leader lease');
    for (;;) {
      if (signal.aborted) return false;
      const acquired = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (acquired) {
        this.lock.recordEvent?.('became leader');
        this.log('info', 'successfully acquired lease');
        return true;
      }
      // JitterUntil, sliding: the next try RetryPeriod × (1 + U[0, 1.2)) after this one ended.
      const wait = this.config.retryPeriodMs * (1 + this.random() * JITTER_FACTOR);
      try {
        await this.clock.sleep(wait, signal);
      } catch {
        return false;
      }
    }
  }

  private startLeading(signal: AbortSignal): void {
    this.leading = true;
    // Upstream starts OnStartedLeading in a goroutine: not awaited, and its failure does not stop renewing.
    void Promise.resolve()
      .then(() => this.callbacks.onStartedLeading(signal))
      .catch((error: unknown) => this.log('error', 'OnStartedLeading failed', error));
  }

  private async renew(leading: AbortController): Promise<void> {
    try {
      for (;;) {
        if (leading.signal.aborted) break;
        const renewed = await this.renewRound(leading.signal);
        this.maybeReportTransition();
        if (!renewed) {
          this.log('info', 'failed to renew lease');
          break;
        }
        try {
          await this.clock.sleep(this.config.retryPeriodMs, leading.signal);
        } catch {
          break;
        }
      }
      // Stop the guarded work before giving the lease away, so it never runs after the release.
      this.leading = false;
      leading.abort(STOPPED_LEADING);
      if (this.config.releaseOnCancel) await this.release();
    } finally {
      this.lock.recordEvent?.('stopped leading');
    }
  }

  /** PollImmediateUntil(RetryPeriod, tryAcquireOrRenew) bounded by RenewDeadline, with Go's ticker cadence. */
  private async renewRound(parent: AbortSignal): Promise<boolean> {
    const { renewDeadlineMs: rd, retryPeriodMs: rp } = this.config;
    const started = this.clock.now();
    const deadlineAt = started + rd;
    const round = new AbortController();
    const follow = (): void => round.abort(parent.reason);
    if (parent.aborted) follow();
    parent.addEventListener('abort', follow, { once: true });
    const timer = new AbortController();
    this.clock.sleep(rd, timer.signal).then(
      () => round.abort(new RenewDeadlineExceeded()),
      () => undefined,
    );
    // A deadline that has passed counts even if its timer has not fired yet (a paused or slow process).
    const expired = (): boolean => round.signal.aborted || this.clock.now() >= deadlineAt;
    try {
      let nextTick = started + rp;
      for (;;) {
        if (expired()) return false;
        if (await this.tryAcquireOrRenew(round.signal)) return true;
        if (expired()) return false;
        const now = this.clock.now();
        if (nextTick <= now) {
          // Go's ticker keeps one missed tick: try again at once, then keep to the original cadence.
          while (nextTick <= now) nextTick += rp;
          continue;
        }
        try {
          await this.clock.sleep(nextTick - now, round.signal);
        } catch {
          return false;
        }
        nextTick += rp;
      }
    } finally {
      timer.abort(TIMER_DONE);
      parent.removeEventListener('abort', follow);
    }
  }

  private isLeaseValid(now: number): boolean {
    return this.observedTime + this.observedRecord.leaseDurationSeconds * 1000 > now;
  }

  private setObservedRecord(record: LeaderElectionRecord): void {
    this.observedRecord = record;
    this.observedTime = this.clock.now();
  }

  private maybeReportTransition(): void {
    if (this.observedRecord.holderIdentity === this.reportedLeader) return;
    this.reportedLeader = this.observedRecord.holderIdentity;
    const onNewLeader = this.callbacks.onNewLeader;
    if (!onNewLeader) return;
    const leader = this.reportedLeader;
    queueMicrotask(() => {
      try {
        onNewLeader(leader);
      } catch (error) {
        this.log('error', 'OnNewLeader failed', error);
      }
    });
  }

  private log(level: ElectionLogLevel, message: string, error?: unknown): void {
    this.config.logger?.(level, message, {
      lease: this.lock.describe(),
      identity: this.lock.identity,
      ...(this.config.name ? { name: this.config.name } : {}),
      ...(error !== undefined ? { error: error instanceof Error ? error.message : String(error) } : {}),
    });
  }
}
