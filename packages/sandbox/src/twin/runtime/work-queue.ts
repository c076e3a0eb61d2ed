import type { Clock } from 'uproot';

/**
 * A de-duplicating queue of keys processed one at a time, off the caller's stack (store listeners run inside
 * the write that triggered them, so reacting there would nest writes). The drain is declared to the clock as
 * work in flight, so a virtual clock never advances while a controller still has something to do.
 */
export class WorkQueue<K> {
  private readonly pending = new Set<K>();
  private draining: Promise<void> | undefined;
  private closed = false;

  /**
   * `tracked: false` for handlers that wait on the clock themselves (a rollout sleeping between nodes): a
   * virtual clock cannot advance while tracked work is pending, so tracking them would never finish.
   */
  constructor(
    private readonly clock: Clock,
    private readonly handle: (key: K) => void | Promise<void>,
    private readonly onError: (key: K, error: unknown) => void,
    private readonly options: { readonly tracked?: boolean } = {},
  ) {}

  add(key: K): void {
    if (this.closed) return;
    this.pending.add(key);
    if (!this.draining)
      this.draining = this.options.tracked === false ? this.drain() : this.clock.track(this.drain());
  }

  get length(): number {
    return this.pending.size;
  }

  /** Resolves when everything queued so far (and anything it queued) is processed. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  close(): void {
    this.closed = true;
    this.pending.clear();
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0 && !this.closed) {
        // Yield a macrotask first: the write that queued the key finishes, and a burst of changes (a thousand
        // pods becoming ready) collapses into one pass per key instead of one per change.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const batch = [...this.pending];
        this.pending.clear();
        for (const key of batch) {
          if (this.closed) return;
          try {
            await this.handle(key);
          } catch (error) {
            this.onError(key, error);
          }
        }
      }
    } finally {
      this.draining = undefined;
    }
  }
}

/** A controller's queue: each key's failure is logged as `<controller> <key>: <message>` and the queue goes on. */
export function controllerQueue<K extends string>(
  clock: Clock,
  controller: string,
  handle: (key: K) => void | Promise<void>,
  log: (line: string) => void,
): WorkQueue<K> {
  return new WorkQueue<K>(clock, handle, (key, error) =>
    log(`${controller} ${key}: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/**
 * Runs `tick` every `periodMs` of clock time until the signal aborts. Errors go to `onError` and the loop
 * carries on, like a controller's wait.Until.
 */
export async function every(
  clock: Clock,
  periodMs: number,
  signal: AbortSignal,
  tick: () => void | Promise<void>,
  onError: (error: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await clock.sleep(periodMs, signal);
    } catch {
      return;
    }
    try {
      await tick();
    } catch (error) {
      onError(error);
    }
  }
}
