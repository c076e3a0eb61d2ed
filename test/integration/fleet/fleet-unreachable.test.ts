import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetMigrate, type FleetMigrateResult } from '../../../packages/uproot/src/toolkit/fleet/index.js';
import { isRecord, metaOf } from '../../../packages/sandbox/src/twin/kube/kube-types.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import { startFleetHarness, type FleetHarness } from './harness.js';

/**
 * A downstream cluster whose API server goes away in the middle of its migration fails alone: the fleet's
 * other clusters finish, and the run reports which one failed and where.
 */
const members = ['downstream-01', 'downstream-02', 'downstream-03'].map((name) => ({
  name,
  scenario: 'rke2-intree',
  labels: {},
}));

describe('a downstream cluster unreachable in the middle of a fleet migration', () => {
  let h: FleetHarness;
  let result: FleetMigrateResult;
  let cut = false;

  beforeAll(async () => {
    h = await startFleetHarness({ members });
    // Once downstream-02 has installed the CCM, its API server stops answering (closed: connections refused).
    const stop = h.fleet.localKube.watch(R.configmaps, (e) => {
      if (cut || metaOf(e.object).name !== 'uproot-migration-downstream-02') return;
      const data = isRecord(e.object.data) ? e.object.data : {};
      const step = JSON.parse(String(data['step.install-ccm.json'] ?? '{}')) as { state?: string };
      if (step.state !== 'verified') return;
      cut = true;
      void h.fleet.member('downstream-02')!.twin.downstream.close();
    });
    result = await fleetMigrate(
      { ...h.targets, parallel: 3, maxFailures: 3, yes: true, stateDir: 'state', gateTimeoutScale: 0.2 },
      h.host,
      { clock: h.clock },
    );
    stop();
  }, 600_000);
  afterAll(async () => h?.close());

  it('fails that cluster alone; the others finish', () => {
    expect(cut).toBe(true);
    const outcome = (name: string) => result.rows.find((r) => r.cluster === `fleet-default/${name}`)!.outcome;
    expect(outcome('downstream-01')).toEqual({ type: 'migrated' });
    expect(outcome('downstream-03')).toEqual({ type: 'migrated' });
    const failed = outcome('downstream-02');
    expect(failed.type).toBe('failed');
    if (failed.type === 'failed') {
      expect(failed.step).not.toBe('install-ccm');
      expect(failed.code).toMatch(/^UP-KUBE-UNREACHABLE$|^UP-GATE-/);
    }
    expect(result.exitCode).toBe(1);
  });
});
