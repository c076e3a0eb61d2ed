import type { Clock } from '../../clock/index.js';

/**
 * A view of a shared clock that runs at `rate` (1.01 = one percent fast), from `anchor` on: what a process
 * with a drifting clock sees. now() drifts and sleeps last `ms / rate` of base time. Tracking is the base's.
 */
export class SkewedClock implements Clock {
  private readonly base: Clock;
  readonly rate: number;
  private readonly anchor: number;

  constructor(base: Clock, rate: number, anchor: number = base.now()) {
    if (!(rate > 0) || !Number.isFinite(rate))
      throw new RangeError(`clock rate must be positive, got ${rate}`);
    this.base = base;
    this.rate = rate;
    this.anchor = anchor;
  }

  now(): number {
    return this.anchor + (this.base.now() - this.anchor) * this.rate;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.base.sleep(Math.max(0, ms) / this.rate, signal);
  }

  track<T>(work: Promise<T>): Promise<T> {
    return this.base.track(work);
  }
}
