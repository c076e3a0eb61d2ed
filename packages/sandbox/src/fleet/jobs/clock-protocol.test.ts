import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from 'uproot/election/testing';
import { ClockBridge } from './clock-bridge.js';
import { BridgedClock } from './pod-clock.js';
import { isToPod, type FromPod, type ToPod } from './clock-protocol.js';

/** A pod and the twin wired as over Node's IPC channel: messages arrive on a later turn, in order. */
function channel() {
  const twinSide = new EventEmitter() as EventEmitter & { connected: boolean; send(m: ToPod): boolean };
  const podInbox: ((m: ToPod) => void)[] = [];
  twinSide.connected = true;
  twinSide.send = (m) => {
    setImmediate(() => podInbox.forEach((f) => f(m)));
    return true;
  };
  const fromPod = (m: FromPod) => setImmediate(() => twinSide.emit('message', m));
  return {
    child: twinSide as unknown as ChildProcess,
    fromPod,
    onPodMessage: (f: (m: ToPod) => void) => podInbox.push(f),
  };
}

async function connectedPod(clock: VirtualClock) {
  const c = channel();
  const hello = new Promise<number>((resolve) => c.onPodMessage((m) => m.t === 'hello' && resolve(m.now)));
  new ClockBridge(c.child, clock, { type: 'virtual' }).start();
  const pod = new BridgedClock(c.fromPod, await hello);
  c.onPodMessage((m) => isToPod(m) && pod.receive(m));
  return pod;
}

describe('a pod on the twin’s virtual clock', () => {
  it('sleeps on the twin’s timers and is woken at their time', async () => {
    const clock = new VirtualClock(1_000);
    const pod = await connectedPod(clock);
    const seen: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 3; i++) {
        await pod.sleep(1_000);
        seen.push(pod.now());
      }
    })();
    await clock.advanceBy(2_500);
    expect(seen).toEqual([2_000, 3_000]);
    await clock.advanceBy(1_000);
    await work;
    expect(seen).toEqual([2_000, 3_000, 4_000]);
  });

  it('holds the twin’s time still while the pod works between its sleeps', async () => {
    const clock = new VirtualClock(0);
    const pod = await connectedPod(clock);
    const seen: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 3; i++) {
        // Real I/O that takes real time (a request to an API server), tracked as the CLI tracks its requests.
        await pod.track(new Promise((resolve) => setTimeout(resolve, 30)));
        seen.push(pod.now());
        await pod.sleep(1_000);
      }
    })();
    await clock.advanceBy(2_500);
    expect(seen).toEqual([0, 1_000, 2_000]);
    await clock.advanceBy(1_000);
    await work;
  });

  it('forgets a sleep the pod gave up on', async () => {
    const clock = new VirtualClock(0);
    const pod = await connectedPod(clock);
    const ac = new AbortController();
    const p = pod.sleep(5_000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    await clock.advanceBy(10);
    expect(clock.pendingTimers).toBe(0);
  });
});
