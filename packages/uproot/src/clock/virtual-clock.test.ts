import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VirtualClock } from './virtual-clock.js';
import { seededRandom } from './random.js';

describe('VirtualClock', () => {
  it('fires timers in due order, then insertion order, and jumps time to each', async () => {
    const clock = new VirtualClock(1000);
    const fired: string[] = [];
    void clock.sleep(30).then(() => fired.push(`b@${clock.now()}`));
    void clock.sleep(10).then(() => fired.push(`a@${clock.now()}`));
    void clock.sleep(30).then(() => fired.push(`c@${clock.now()}`));
    await clock.advanceBy(20);
    expect(fired).toEqual(['a@1010']);
    expect(clock.now()).toBe(1020);
    await clock.advanceBy(100);
    expect(fired).toEqual(['a@1010', 'b@1030', 'c@1030']);
    expect(clock.now()).toBe(1120);
  });

  it('runs chains of sleeps in virtual time without real waiting', async () => {
    const clock = new VirtualClock(0);
    let ticks = 0;
    const loop = async (): Promise<void> => {
      for (let i = 0; i < 3600; i++) {
        await clock.sleep(1000);
        ticks++;
      }
    };
    const done = loop();
    const started = Date.now();
    await clock.advanceBy(3_600_000);
    await done;
    expect(ticks).toBe(3600);
    expect(clock.now()).toBe(3_600_000);
    expect(Date.now() - started).toBeLessThan(10_000); // sanity only: an hour did not really pass
  });

  it('rejects an aborted sleep and forgets its timer', async () => {
    const clock = new VirtualClock(0);
    const ac = new AbortController();
    const p = clock.sleep(50, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    expect(clock.pendingTimers).toBe(0);
  });

  it('does not advance while tracked I/O is in flight', async () => {
    const server = createServer((_req, res) => setTimeout(() => res.end('ok'), 20));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const clock = new VirtualClock(0);
      const seen: number[] = [];
      const worker = async (): Promise<void> => {
        for (let i = 0; i < 3; i++) {
          await clock.track(fetch(`http://127.0.0.1:${port}/`).then((r) => r.text()));
          seen.push(clock.now());
          await clock.sleep(1000);
        }
      };
      const done = worker();
      await clock.advanceBy(2500);
      // Requests happened at t=0, 1000, 2000: each real request finished before time moved on.
      expect(seen).toEqual([0, 1000, 2000]);
      await clock.advanceBy(1000);
      await done;
    } finally {
      server.close();
    }
  });
});

describe('seededRandom', () => {
  it('repeats for a seed and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBeGreaterThan(990);
  });
});
