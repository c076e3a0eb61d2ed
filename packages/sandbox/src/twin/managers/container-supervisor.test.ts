import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from 'uproot/core';
import { VirtualClock } from 'uproot';
import { ContainerSupervisor, type ContainerSnapshot } from './container-supervisor.js';
import type { ManagerExit, ManagerLauncher } from './manager-launcher.js';

const launch = {
  component: 'kube-controller-manager' as const,
  nodeName: 'n',
  instanceId: 'i-0',
  role: 'control-plane' as const,
  args: [],
  kubernetesVersion: parseKubernetesVersion('1.26'),
  readFile: async () => '',
  log: () => undefined,
};

/** A launcher whose processes exit when told to. */
function scripted() {
  const exits: ((e: ManagerExit) => void)[] = [];
  const starts: number[] = [];
  const launcher: ManagerLauncher = async () => {
    let resolve!: (e: ManagerExit) => void;
    const exited = new Promise<ManagerExit>((r) => (resolve = r));
    exits.push(resolve);
    let running = true;
    void exited.then(() => (running = false));
    return {
      identity: `id-${exits.length}`,
      exited,
      get running() {
        return running;
      },
      stop: async () => resolve({ code: 0, reason: 'terminated' }),
    };
  };
  return { launcher, exits, starts };
}

describe('ContainerSupervisor', () => {
  it('restarts an exited manager after the kubelet back-off, doubling it, and counts restarts', async () => {
    const clock = new VirtualClock();
    const { launcher, exits } = scripted();
    const seen: ContainerSnapshot[] = [];
    const backoffs: number[] = [];
    const s = new ContainerSupervisor(clock, () => launcher(launch), {
      onChange: (snap) => seen.push(snap),
      onBackOff: (_e, delay) => backoffs.push(delay),
      onError: () => undefined,
    });
    s.start();
    await clock.advanceBy(0);
    expect(s.current.state.type).toBe('running');
    exits[0]!({ code: 1, reason: 'leaderelection lost' });
    await clock.advanceBy(1_000);
    expect(s.current.state).toMatchObject({ type: 'waiting', reason: 'CrashLoopBackOff' });
    expect(s.current.lastTermination).toMatchObject({ exitCode: 1, message: 'leaderelection lost' });
    await clock.advanceBy(10_000);
    expect(exits).toHaveLength(2);
    expect(s.current).toMatchObject({ restartCount: 1, identity: 'id-2' });
    exits[1]!({ code: 1, reason: 'again' });
    await clock.advanceBy(15_000);
    expect(exits).toHaveLength(2);
    await clock.advanceBy(10_000);
    expect(exits).toHaveLength(3);
    expect(backoffs).toEqual([10_000, 20_000]);
    await s.stop();
    await clock.advanceBy(600_000);
    expect(exits).toHaveLength(3);
  });
});
