import { abortReason, type Clock } from './clock.js';

/** Wall-clock time, optionally sped up by `scale` (2 means a simulated second passes every half real second). */
export class RealClock implements Clock {
  private readonly scale: number;
  private readonly realStart: number;
  private readonly start: number;

  constructor(options: { scale?: number; start?: number } = {}) {
    this.scale = options.scale ?? 1;
    if (!(this.scale > 0) || !Number.isFinite(this.scale)) {
      throw new RangeError(`clock scale must be a positive number, got ${String(options.scale)}`);
    }
    this.realStart = Date.now();
    this.start = options.start ?? this.realStart;
  }

  now(): number {
    return this.start + (Date.now() - this.realStart) * this.scale;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms / this.scale),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  track<T>(work: Promise<T>): Promise<T> {
    return work;
  }
}
