import { describe, expect, it } from 'vitest';
import { rehearseMigration } from './rehearse-migration.js';
import { controllerFigures } from 'uproot/core';

describe('rehearseMigration (virtual time, memory lease store, 3 control-plane nodes, 15 s / 10 s / 2 s)', () => {
  it.each([1, 2, 3])(
    'with leader migration (seed %i): no overlap, and every gap within the lease bounds',
    async (seed) => {
      const report = await rehearseMigration({ leaderMigration: true, seed });
      const { figures } = report;
      for (const c of figures.migrated) {
        expect(figures.overlapSeconds[c]).toBe(0);
        expect(figures.maxGapSeconds[c]).toBeLessThanOrEqual(figures.gapBoundSeconds);
        // The migrated controllers really moved: first a KCM, at the end a CCM.
        const intervals = report.ledger.controllers[c]!.intervals;
        expect(intervals[0]!.component).toBe('kube-controller-manager');
        expect(intervals.at(-1)!.component).toBe('cloud-controller-manager');
      }
      // The handover waited out a lease: a gap exists, at least the lease duration minus a retry.
      expect(figures.worstGapSeconds).toBeGreaterThanOrEqual(13);
      expect(report.ledger.strayActions).toEqual([]);
    },
  );

  it('without leader migration the controllers are unowned between the KCM restarts and the CCM rollout', async () => {
    const withMigration = await rehearseMigration({ leaderMigration: true, seed: 1 });
    const without = await rehearseMigration({ leaderMigration: false, seed: 1 });
    expect(without.figures.worstOverlapSeconds).toBe(0);
    expect(without.figures.worstGapSeconds).toBeGreaterThan(without.figures.gapBoundSeconds);
    expect(without.figures.worstGapSeconds).toBeGreaterThan(3 * withMigration.figures.worstGapSeconds);
  });

  it.each([true, false])(
    'the outside lease timeline agrees with the ledger (migration %s)',
    async (leaderMigration) => {
      const report = await rehearseMigration({ leaderMigration, seed: 4 });
      expect(report.observations.length).toBeGreaterThan(50);
      expect(report.disagreements.filter((d) => !d.explained)).toEqual([]);
      for (const c of ['route', 'service', 'cloud-node-lifecycle', 'nodeipam', 'cloud-node']) {
        const truth = report.ledger.controllers[c]!.intervals.map((i) => i.identity);
        const seen = report.timeline.controllers[c]!.intervals.map((i) => i.identity);
        expect(seen).toEqual(truth);
      }
      // Lag only: the timeline never invents an owner for longer than a lease plus two polls.
      const controllerTime = 5 * (report.ledger.window.to - report.ledger.window.from);
      const disagreeing = report.disagreements.reduce((sum, d) => sum + (d.to - d.from), 0);
      expect(disagreeing / controllerTime).toBeLessThan(0.1);
    },
  );

  it('finds the 1.28+ default-config hazard: a 1.30 CCM runs service beside a 1.26 KCM; a both-eras config fixes it', async () => {
    const hazard = await rehearseMigration({ leaderMigration: true, seed: 5, ccmVersion: '1.30' });
    expect(hazard.figures.overlapSeconds.service).toBeGreaterThan(60);
    expect(hazard.figures.overlapSeconds['cloud-node-lifecycle']).toBe(0);
    expect(hazard.timeline.controllers.service).toMatchObject({ state: 'running' });
    expect(controllerFigures(hazard.timeline.controllers.service)!.overlapSeconds).toBeGreaterThan(60);

    const names = [
      'route',
      'service',
      'cloud-node-lifecycle',
      'node-route-controller',
      'service-lb-controller',
      'cloud-node-lifecycle-controller',
    ];
    const safe = await rehearseMigration({
      leaderMigration: true,
      seed: 5,
      ccmVersion: '1.30',
      migrationConfig: {
        leaderName: 'cloud-provider-extraction-migration',
        resourceLock: 'leases',
        controllerLeaders: names.map((name) => ({ name, component: '*' })),
      },
    });
    expect(safe.figures.worstOverlapSeconds).toBe(0);
    expect(safe.figures.worstGapSeconds).toBeLessThanOrEqual(safe.figures.gapBoundSeconds);
  });
});
