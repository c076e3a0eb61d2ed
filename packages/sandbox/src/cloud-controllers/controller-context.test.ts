import { describe, expect, it } from 'vitest';
import { VirtualClock } from 'uproot';
import { Backoff, ControllerStopped, guard, runPeriodically } from './controller-context.js';

describe('runPeriodically', () => {
  it('runs at once, then every period on the clock, and stops with the signal', async () => {
    const clock = new VirtualClock(0);
    const ac = new AbortController();
    const at: number[] = [];
    const done = runPeriodically({
      clock,
      signal: ac.signal,
      periodMs: 5_000,
      pass: async () => void at.push(clock.now()),
      onError: () => {},
    });
    await clock.advanceBy(12_000);
    ac.abort();
    await done;
    expect(at).toEqual([0, 5_000, 10_000]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('runs one extra pass when woken, however many wake-ups came during a pass', async () => {
    const clock = new VirtualClock(0);
    const ac = new AbortController();
    let notify: () => void = () => {};
    let passes = 0;
    const done = runPeriodically({
      clock,
      signal: ac.signal,
      periodMs: 60_000,
      wake: (n) => {
        notify = n;
        return () => {};
      },
      pass: async () => {
        passes++;
        if (passes === 1) {
          notify();
          notify();
        }
      },
      onError: () => {},
    });
    await clock.advanceBy(1_000);
    expect(passes).toBe(2);
    notify();
    await clock.advanceBy(1_000);
    expect(passes).toBe(3);
    ac.abort();
    await done;
  });

  it('reports a failing pass and keeps going; ControllerStopped ends the loop quietly', async () => {
    const clock = new VirtualClock(0);
    const errors: unknown[] = [];
    let n = 0;
    const done = runPeriodically({
      clock,
      signal: new AbortController().signal,
      periodMs: 1_000,
      pass: async () => {
        n++;
        if (n === 1) throw new Error('boom');
        if (n === 3) throw new ControllerStopped();
      },
      onError: (e) => errors.push(e),
    });
    await clock.advanceBy(5_000);
    await done;
    expect(n).toBe(3);
    expect(errors.map(String)).toEqual(['Error: boom']);
  });

  it('guard throws once the signal aborted', () => {
    const ac = new AbortController();
    expect(() => guard(ac.signal)).not.toThrow();
    ac.abort();
    expect(() => guard(ac.signal)).toThrow(ControllerStopped);
  });
});

describe('Backoff', () => {
  it('doubles the wait per failure up to the cap and forgets on success', () => {
    const b = new Backoff(1_000, 5_000);
    b.failed('x', 0);
    expect(b.due('x', 999)).toBe(false);
    expect(b.due('x', 1_000)).toBe(true);
    b.failed('x', 1_000);
    expect(b.due('x', 2_999)).toBe(false);
    b.failed('x', 3_000);
    b.failed('x', 3_000);
    expect(b.due('x', 7_999)).toBe(false);
    expect(b.due('x', 8_000)).toBe(true);
    b.succeeded('x');
    expect(b.due('x', 0)).toBe(true);
    expect(b.due('other', 0)).toBe(true);
  });
});
