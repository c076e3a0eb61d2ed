import { describe, expect, it } from 'vitest';
import { VirtualClock } from 'uproot';
import { parseFaultsFlag } from '../../scenarios/fault-spec.js';
import type { ManagerLaunch, ManagerLauncher, ManagerProcess } from '../managers/manager-launcher.js';
import { TwinFaults } from './twin-faults.js';

const healthy: ManagerLauncher = async (launch) =>
  ({
    identity: `${launch.nodeName}_ok`,
    exited: new Promise(() => undefined),
    running: true,
    stop: async () => undefined,
  }) satisfies ManagerProcess;

const launch = (component: ManagerLaunch['component'], nodeName: string): ManagerLaunch =>
  ({ component, nodeName, log: () => undefined }) as unknown as ManagerLaunch;

describe('TwinFaults: the CCM crash-loop', () => {
  it('the first CCM started after arming exits with status 1 on its first N starts, then runs; others run', async () => {
    const clock = new VirtualClock(0);
    const faults = new TwinFaults(parseFaultsFlag('ccm-crashloop=2'), {
      clock,
      seed: 1,
      log: () => undefined,
    });
    const launcher = faults.wrapLauncher(healthy);
    // Before arming (the twin booting), nothing crashes.
    expect((await launcher(launch('cloud-controller-manager', 'cp-0'))).identity).toBe('cp-0_ok');
    faults.arm({
      downstream: {} as never,
      rancher: undefined,
      aws: { faults: { throttle: () => undefined } } as never,
      fleet: {} as never,
    });
    expect((await launcher(launch('kube-controller-manager', 'cp-1'))).identity).toBe('cp-1_ok');
    const first = await launcher(launch('cloud-controller-manager', 'cp-1'));
    expect((await launcher(launch('cloud-controller-manager', 'cp-2'))).identity).toBe('cp-2_ok');
    await clock.advanceBy(1_000);
    await expect(first.exited).resolves.toEqual({
      code: 1,
      reason: 'injected fault ccm-crashloop (1 of 2): exiting at start',
    });
    const second = await launcher(launch('cloud-controller-manager', 'cp-1'));
    await clock.advanceBy(1_000);
    await expect(second.exited).resolves.toMatchObject({ code: 1 });
    expect((await launcher(launch('cloud-controller-manager', 'cp-1'))).identity).toBe('cp-1_ok');
    expect(faults.report().faults).toEqual([expect.objectContaining({ fault: 'ccm-crashloop', fired: 2 })]);
  });
});
