import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FollowedClock, type PollTimer } from './followed-clock.js';

/** A poll timer the test fires by hand: no real waiting. */
function manualTimer(): PollTimer & { fire(): Promise<void>; readonly keepAlive: boolean | undefined } {
  let next: { fn: () => void; keepAlive: boolean } | undefined;
  const timer = ((fn: () => void, _ms: number, keepAlive: boolean) => {
    const entry = { fn, keepAlive };
    next = entry;
    return () => {
      if (next === entry) next = undefined;
    };
  }) as PollTimer & { fire(): Promise<void>; readonly keepAlive: boolean | undefined };
  timer.fire = async () => {
    const entry = next;
    next = undefined;
    entry?.fn();
    // The poll awaits its sample: let it settle.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  Object.defineProperty(timer, 'keepAlive', { get: () => next?.keepAlive });
  return timer;
}

const lost = (cause: unknown): Error => new Error(`lost: ${String(cause)}`);

describe('FollowedClock', () => {
  it("shows the followed clock's latest sample and resolves a sleep once a sample reaches its deadline", async () => {
    let followed = 1_000;
    const timer = manualTimer();
    const clock = await FollowedClock.follow(async () => followed, { lost, timer });
    expect(clock.now()).toBe(1_000);
    let woke = false;
    void clock.sleep(500).then(() => (woke = true));
    followed = 1_400;
    await timer.fire();
    expect(clock.now()).toBe(1_400);
    expect(woke).toBe(false);
    followed = 1_500;
    await timer.fire();
    expect(woke).toBe(true);
  });

  it('never moves time back when a sample is older than the last one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 30 }),
        async (samples) => {
          const timer = manualTimer();
          const queue = [...samples];
          const clock = await FollowedClock.follow(async () => queue.shift() ?? 0, { lost, timer });
          let highest = samples[0]!;
          for (let i = 1; i < samples.length; i++) {
            await timer.fire();
            highest = Math.max(highest, samples[i]!);
            expect(clock.now()).toBe(highest);
          }
        },
      ),
    );
  });

  it('holds the process open only while someone sleeps', async () => {
    const timer = manualTimer();
    const clock = await FollowedClock.follow(async () => 0, { lost, timer });
    expect(timer.keepAlive).toBe(false);
    void clock.sleep(10);
    expect(timer.keepAlive).toBe(true);
    clock.close();
    expect(timer.keepAlive).toBeUndefined();
  });

  it('rejects pending and later sleeps with the caller’s error after enough failed samples', async () => {
    const timer = manualTimer();
    let fail = false;
    const clock = await FollowedClock.follow(
      async () => {
        if (fail) throw new Error('connection refused');
        return 0;
      },
      { lost, timer, lostAfter: 3 },
    );
    const pending = clock.sleep(1_000);
    fail = true;
    await timer.fire();
    await timer.fire();
    await timer.fire();
    await expect(pending).rejects.toThrow('lost: Error: connection refused');
    await expect(clock.sleep(1)).rejects.toThrow('lost:');
  });

  it('recovers from fewer failures than lostAfter', async () => {
    const timer = manualTimer();
    let fail = false;
    let followed = 0;
    const clock = await FollowedClock.follow(
      async () => {
        if (fail) throw new Error('reset');
        return followed;
      },
      { lost, timer, lostAfter: 3 },
    );
    let woke = false;
    void clock.sleep(100).then(() => (woke = true));
    fail = true;
    await timer.fire();
    await timer.fire();
    fail = false;
    followed = 100;
    await timer.fire();
    expect(woke).toBe(true);
  });

  it('rejects an aborted sleep', async () => {
    const timer = manualTimer();
    const clock = await FollowedClock.follow(async () => 0, { lost, timer });
    const abort = new AbortController();
    const sleeping = clock.sleep(1_000, abort.signal);
    abort.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
  });

  it('reports a first sample that fails to the caller', async () => {
    await expect(
      FollowedClock.follow(async () => Promise.reject(new Error('ECONNREFUSED')), { lost }),
    ).rejects.toThrow('ECONNREFUSED');
  });
});
