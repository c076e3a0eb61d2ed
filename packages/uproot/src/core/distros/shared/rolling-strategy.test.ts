import { describe, expect, it } from 'vitest';
import { rke2StrategyFindings, rkeStrategyFindings } from './rolling-strategy.js';

const cluster = (upgradeStrategy: Record<string, unknown>) => ({ spec: { rkeConfig: { upgradeStrategy } } });

describe('rke2StrategyFindings', () => {
  it('says nothing for Rancher\u2019s defaults (one at a time, no drain)', () => {
    expect(rke2StrategyFindings(cluster({ controlPlaneConcurrency: '1', workerConcurrency: '10%' }))).toEqual(
      [],
    );
    expect(rke2StrategyFindings({ spec: {} })).toEqual([]);
  });
  it('keeps a control-plane concurrency above one and says why the bound holds', () => {
    const [f] = rke2StrategyFindings(cluster({ controlPlaneConcurrency: '2' }));
    expect(f).toMatchObject({ severity: 'info', code: 'user-rolling-concurrency' });
    expect(f!.message).toContain('uproot keeps your value');
    expect(f!.message).toContain('20 s gap bound');
  });
  it('notes drain, and warns when it would refuse DaemonSet pods', () => {
    const on = rke2StrategyFindings(cluster({ controlPlaneDrainOptions: { enabled: true } }));
    expect(on).toMatchObject([{ severity: 'info', code: 'user-drain' }]);
    const refusing = rke2StrategyFindings(
      cluster({ workerDrainOptions: { enabled: true, ignoreDaemonSets: false } }),
    );
    expect(refusing).toMatchObject([
      { severity: 'warning', code: 'user-drain', field: 'spec.rkeConfig.upgradeStrategy.workerDrainOptions' },
    ]);
  });
});

describe('rkeStrategyFindings', () => {
  it('says nothing for RKE\u2019s defaults', () => {
    expect(
      rkeStrategyFindings({
        upgrade_strategy: { max_unavailable_controlplane: 1, max_unavailable_worker: '10%' },
      }),
    ).toEqual([]);
  });
  it('keeps max_unavailable_controlplane above one, and notes drain', () => {
    const found = rkeStrategyFindings({
      upgrade_strategy: {
        max_unavailable_controlplane: '2',
        drain: true,
        node_drain_input: { ignore_daemonsets: false },
      },
    });
    expect(found.map((f) => [f.code, f.severity])).toEqual([
      ['user-rolling-concurrency', 'info'],
      ['user-drain', 'warning'],
    ]);
  });
});
