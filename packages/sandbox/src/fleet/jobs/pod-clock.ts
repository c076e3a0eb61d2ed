/**
 * The pod's side of the clock protocol (clock-protocol.ts): a Clock whose timers live in the twin. It reports
 * itself idle the way the VirtualClock settles (no tracked request open over two quiet macrotasks), so the
 * twin may move time on only when the pod has nothing to do but wait.
 */
import type { Clock } from 'uproot';
import type { FromPod, ToPod } from './clock-protocol.js';

/** What an aborted sleep rejects with, as every Clock does (src/clock/clock.ts). */
const aborted = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class BridgedClock implements Clock {
  private current: number;
  private nextId = 0;
  private readonly timers = new Map<number, () => void>();
  private inFlight = 0;
  private noneInFlight: (() => void) | undefined;
  private wakeSeq = 0;
  private checking = false;
  private idle = false;

  constructor(
    private readonly send: (message: FromPod) => void,
    now: number,
  ) {
    this.current = now;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(aborted(signal));
        return;
      }
      const id = ++this.nextId;
      const onAbort = (): void => {
        if (!this.timers.delete(id)) return;
        this.send({ t: 'cancel', id });
        reject(aborted(signal!));
      };
      this.timers.set(id, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.active();
      this.send({ t: 'sleep', id, ms: Math.max(0, ms) });
      this.checkIdle();
    });
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.inFlight++;
    this.active();
    return work.finally(() => {
      this.inFlight--;
      if (this.inFlight === 0) this.noneInFlight?.();
      this.checkIdle();
    });
  }

  receive(message: ToPod): void {
    if (message.t !== 'wake') return;
    this.current = Math.max(this.current, message.now);
    this.wakeSeq = message.seq;
    this.idle = false;
    const fire = this.timers.get(message.id);
    this.timers.delete(message.id);
    fire?.();
    this.checkIdle();
  }

  /** Work began without a wake: tell the twin before it moves time on. */
  private active(): void {
    if (!this.idle) return;
    this.idle = false;
    this.send({ t: 'busy' });
  }

  private checkIdle(): void {
    if (this.checking) return;
    this.checking = true;
    void (async () => {
      let quiet = 0;
      while (quiet < 2) {
        if (this.inFlight > 0) await new Promise<void>((resolve) => (this.noneInFlight = resolve));
        this.noneInFlight = undefined;
        await macrotask();
        quiet = this.inFlight === 0 ? quiet + 1 : 0;
      }
      this.checking = false;
      if (!this.idle) {
        this.idle = true;
        this.send({ t: 'idle', seq: this.wakeSeq });
      }
    })();
  }
}
