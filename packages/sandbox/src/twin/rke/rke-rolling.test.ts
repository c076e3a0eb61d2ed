import { describe, expect, it } from 'vitest';
import { calculateMaxUnavailable, rkeUpgradeStrategy, runHostPool } from './rke-rolling.js';

// rancher/rke services/node_util.go CalculateMaxUnavailable and ResetMaxUnavailable; cluster/defaults.go.
describe('calculateMaxUnavailable', () => {
  it('is one control-plane host at a time unless cluster.yml says otherwise', () => {
    const s = rkeUpgradeStrategy('nodes: []\n');
    expect(calculateMaxUnavailable(s.maxUnavailableControlplane, 3, 'controlplane')).toEqual({
      ok: true,
      n: 1,
    });
    const w = rkeUpgradeStrategy('upgrade_strategy:\n  max_unavailable_worker: 10%\n');
    expect(calculateMaxUnavailable(w.maxUnavailableControlplane, 3, 'controlplane')).toEqual({
      ok: true,
      n: 1,
    });
  });
  it('takes a number or a percentage rounded down, never less than one, at most 50', () => {
    expect(calculateMaxUnavailable('2', 3, 'controlplane')).toEqual({ ok: true, n: 2 });
    expect(calculateMaxUnavailable('70%', 3, 'controlplane')).toEqual({ ok: true, n: 2 });
    expect(calculateMaxUnavailable('10%', 3, 'controlplane')).toEqual({ ok: true, n: 1 });
    expect(calculateMaxUnavailable('10%', 25, 'worker')).toEqual({ ok: true, n: 2 });
    expect(calculateMaxUnavailable('50%', 3, 'worker')).toEqual({ ok: true, n: 1 });
    expect(calculateMaxUnavailable('80', 100, 'worker')).toEqual({ ok: true, n: 50 });
    expect(calculateMaxUnavailable('100%', 200, 'worker')).toEqual({ ok: true, n: 50 });
  });
  it('refuses zero and negative values as rke up does', () => {
    expect(calculateMaxUnavailable('0', 3, 'worker')).toEqual({
      ok: false,
      error: 'invalid input for max_unavailable_worker: 0, value must be > 0',
    });
    expect(calculateMaxUnavailable('0%', 3, 'controlplane')).toMatchObject({ ok: false });
    expect(calculateMaxUnavailable('-1', 3, 'controlplane')).toMatchObject({ ok: false });
    expect(calculateMaxUnavailable('two', 3, 'worker')).toMatchObject({ ok: false });
  });
});

describe('rkeUpgradeStrategy', () => {
  it('defaults as cluster/defaults.go and reads Rancher\u2019s rancher_kubernetes_engine_config form', () => {
    expect(rkeUpgradeStrategy('nodes: []\n')).toMatchObject({
      maxUnavailableWorker: '10%',
      maxUnavailableControlplane: '1',
      drain: false,
      drainInput: { ignoreDaemonSets: true, timeoutSeconds: 120, gracePeriodSeconds: -1 },
    });
    const rancher = rkeUpgradeStrategy(
      [
        'rancher_kubernetes_engine_config:',
        '  upgrade_strategy:',
        '    max_unavailable_controlplane: "2"',
        '    drain: true',
        '    node_drain_input: {ignore_daemonsets: false, delete_local_data: true, force: true, timeout: 60}',
        '',
      ].join('\n'),
    );
    expect(rancher).toMatchObject({
      maxUnavailableControlplane: '2',
      drain: true,
      drainInput: { ignoreDaemonSets: false, deleteEmptyDirData: true, force: true, timeoutSeconds: 60 },
    });
  });
});

describe('runHostPool', () => {
  it('keeps at most `parallel` hosts in flight, in queue order, and stops taking hosts after a failure', async () => {
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    const upgrade = async (h: number): Promise<string | undefined> => {
      order.push(h);
      inFlight++;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      await Promise.resolve();
      inFlight--;
      return h === 3 ? `host ${h} failed` : undefined;
    };
    const failures = await runHostPool([1, 2, 3, 4, 5, 6], 2, upgrade);
    expect(most).toBe(2);
    expect(order.slice(0, 3)).toEqual([1, 2, 3]);
    expect(failures).toEqual(['host 3 failed']);
    expect(order).not.toContain(6);
  });
});
