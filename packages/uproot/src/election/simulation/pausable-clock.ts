import { abortReason, type Clock } from '../../clock/index.js';

/**
 * A process that can be frozen, as a stop-the-world pause or a SIGSTOP freezes one: while paused, none of
 * its timers fire and none of its I/O completions are seen; on resume they are delivered in the order they
 * became due. Time itself keeps running. Use `gate()` around I/O that does not go through this clock.
 */
export class PausableClock implements Clock {
  private readonly base: Clock;
  private paused: { promise: Promise<void>; resume: () => void } | undefined;

  constructor(base: Clock) {
    this.base = base;
  }

  get isPaused(): boolean {
    return this.paused !== undefined;
  }

  pause(): void {
    if (this.paused) return;
    let resume!: () => void;
    const promise = new Promise<void>((r) => (resume = r));
    this.paused = { promise, resume };
  }

  resume(): void {
    const paused = this.paused;
    this.paused = undefined;
    paused?.resume();
  }

  /** Resolves at once when running, or when the process resumes. */
  gate(): Promise<void> {
    return this.paused ? this.paused.promise.then(() => this.gate()) : Promise.resolve();
  }

  now(): number {
    return this.base.now();
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await this.base.sleep(ms, signal);
    await this.gate();
    if (signal?.aborted) throw abortReason(signal);
  }

  async track<T>(work: Promise<T>): Promise<T> {
    const result = await this.base.track(work);
    await this.gate();
    return result;
  }
}
