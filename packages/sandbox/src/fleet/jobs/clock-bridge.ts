/**
 * The twin's side of the pod clock protocol (clock-protocol.ts): registers a pod's sleeps on the twin's
 * clock, wakes it, and holds the virtual clock still while the pod works.
 */
import type { ChildProcess } from 'node:child_process';
import type { Clock } from 'uproot';
import { isFromPod, type ToPod } from './clock-protocol.js';

export type PodClockMode = { readonly type: 'virtual' } | { readonly type: 'scaled'; readonly scale: number };

export class ClockBridge {
  private readonly sleeps = new Map<number, AbortController>();
  private busy: (() => void) | undefined;
  private seq = 0;
  private closed = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly clock: Clock,
    private readonly mode: PodClockMode,
  ) {}

  /** Says hello (the time, and how it runs); in virtual time the pod counts as busy until its first idle. */
  start(): void {
    if (this.mode.type === 'virtual') this.beginBusy();
    this.child.on('message', (m) => this.receive(m));
    this.child.once('exit', () => this.close());
    this.send(
      this.mode.type === 'virtual'
        ? { t: 'hello', mode: 'virtual', now: this.clock.now() }
        : { t: 'hello', mode: 'scaled', now: this.clock.now(), scale: this.mode.scale },
    );
  }

  close(): void {
    this.closed = true;
    for (const ac of this.sleeps.values()) ac.abort();
    this.sleeps.clear();
    this.endBusy();
  }

  private receive(m: unknown): void {
    if (!isFromPod(m) || this.closed) return;
    switch (m.t) {
      case 'sleep': {
        const ac = new AbortController();
        this.sleeps.set(m.id, ac);
        this.clock.sleep(m.ms, ac.signal).then(
          () => {
            this.sleeps.delete(m.id);
            if (this.closed) return;
            this.seq++;
            if (this.mode.type === 'virtual') this.beginBusy();
            this.send({ t: 'wake', id: m.id, now: this.clock.now(), seq: this.seq });
          },
          () => undefined,
        );
        return;
      }
      case 'cancel':
        this.sleeps.get(m.id)?.abort();
        this.sleeps.delete(m.id);
        return;
      case 'idle':
        if (m.seq === this.seq) this.endBusy();
        return;
      case 'busy':
        if (this.mode.type === 'virtual') this.beginBusy();
        return;
    }
  }

  private beginBusy(): void {
    if (this.busy || this.closed) return;
    void this.clock.track(new Promise<void>((resolve) => (this.busy = resolve)));
  }

  private endBusy(): void {
    const done = this.busy;
    this.busy = undefined;
    done?.();
  }

  private send(message: ToPod): void {
    if (this.child.connected) this.child.send(message);
  }
}
