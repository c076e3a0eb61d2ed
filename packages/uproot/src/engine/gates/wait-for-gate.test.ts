import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import { AccessError } from '../../errors/index.js';
import type { GateVerdict } from './gate-verdict.js';
import { waitForGate } from './wait-for-gate.js';

const notYet: GateVerdict = { type: 'wait', reason: 'not yet', fix: 'wait more' };

describe('waitForGate', () => {
  it('polls with backoff until the gate passes, on virtual time', async () => {
    const clock = new VirtualClock(0);
    const looks: number[] = [];
    const done = waitForGate(
      async () => {
        looks.push(clock.now());
        return clock.now() >= 20_000 ? { type: 'pass', detail: 'ok' } : notYet;
      },
      { clock, timeoutMs: 300_000 },
    );
    await clock.runUntilIdle();
    // Delays double from 1 s: looks at 0, 1, 3, 7, 15, then 30 s (capped at 15 s apart).
    expect(await done).toEqual({ type: 'passed', after: 30_000, detail: 'ok' });
    expect(looks).toEqual([0, 1_000, 3_000, 7_000, 15_000, 30_000]);
  });

  it('times out at the deadline with the last reason', async () => {
    const clock = new VirtualClock(0);
    let looks = 0;
    const done = waitForGate(
      async () => {
        looks++;
        return { ...notYet, reason: `not yet (${looks})` };
      },
      { clock, timeoutMs: 60_000 },
    );
    await clock.runUntilIdle();
    expect(await done).toEqual({ type: 'timed-out', last: `not yet (${looks})`, fix: 'wait more' });
    expect(clock.now()).toBe(60_000);
  });

  it('stops at once on a permanent failure', async () => {
    const clock = new VirtualClock(0);
    const result = await waitForGate(
      async () => ({ type: 'fail', reason: 'OnDelete', fix: 'use RollingUpdate' }),
      {
        clock,
        timeoutMs: 60_000,
      },
    );
    expect(result).toEqual({ type: 'failed', reason: 'OnDelete', fix: 'use RollingUpdate' });
  });

  it('looks once when there is no deadline', async () => {
    const clock = new VirtualClock(0);
    expect(await waitForGate(async () => notYet, { clock, timeoutMs: undefined })).toEqual({
      type: 'failed',
      reason: 'not yet',
      fix: 'wait more',
    });
  });

  it('treats a transient read error as not yet, but rethrows a refusal', async () => {
    const clock = new VirtualClock(0);
    let calls = 0;
    const done = waitForGate(
      async () => {
        if (calls++ === 0) throw new Error('socket hang up');
        return { type: 'pass', detail: 'ok' };
      },
      { clock, timeoutMs: 10_000 },
    );
    await clock.runUntilIdle();
    expect(await done).toMatchObject({ type: 'passed', after: 1_000 });
    await expect(
      waitForGate(
        async () => {
          throw new AccessError('UP-KUBE-ACCESS', 'forbidden');
        },
        { clock, timeoutMs: 10_000 },
      ),
    ).rejects.toThrow('forbidden');
  });

  it('is interrupted by the abort signal while sleeping', async () => {
    const clock = new VirtualClock(0);
    const controller = new AbortController();
    const done = waitForGate(async () => notYet, { clock, timeoutMs: 600_000, signal: controller.signal });
    await clock.advanceBy(5_000);
    controller.abort(new Error('interrupted'));
    await expect(done).rejects.toThrow('interrupted');
  });
});
