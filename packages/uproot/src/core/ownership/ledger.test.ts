import { describe, expect, it } from 'vitest';
import { analyzeLedger, createLedger, logicalControllerName } from './ledger.js';
import { ownershipReportToJson } from './ownership-report.js';

const KCM = 'kube-controller-manager';
const CCM = 'cloud-controller-manager';

describe('logical controller names', () => {
  it.each([
    ['service', 'service'],
    ['service-lb-controller', 'service'],
    ['route', 'route'],
    ['node-route-controller', 'route'],
    ['cloud-node-lifecycle', 'cloud-node-lifecycle'],
    ['cloud-node-lifecycle-controller', 'cloud-node-lifecycle'],
    ['nodeipam', 'nodeipam'],
    ['node-ipam-controller', 'nodeipam'],
    ['cloud-node-controller', 'cloud-node'],
    ['deployment-controller', 'deployment-controller'],
  ])('%s → %s', (name, logical) => expect(logicalControllerName(name)).toBe(logical));
});

describe('analyzeLedger', () => {
  it('merges names across managers and eras into one logical controller, with a handover and no overlap', () => {
    const ledger = createLedger();
    ledger.record({ controller: 'service', component: KCM, identity: 'kcm-a', time: 0, action: 'started' });
    ledger.record({ controller: 'service', component: KCM, identity: 'kcm-a', time: 5, action: 'ensure lb' });
    ledger.record({ controller: 'service', component: KCM, identity: 'kcm-a', time: 10, action: 'stopped' });
    ledger.record({
      controller: 'service-lb-controller',
      component: CCM,
      identity: 'ccm-b',
      time: 25,
      action: 'started',
    });
    const report = analyzeLedger(ledger.entries, { window: { from: 0, to: 100 } });
    const service = report.controllers.service!;
    expect(service.intervals).toEqual([
      { identity: 'kcm-a', component: KCM, controllerName: 'service', from: 0, to: 10, open: false },
      {
        identity: 'ccm-b',
        component: CCM,
        controllerName: 'service-lb-controller',
        from: 25,
        to: 100,
        open: true,
      },
    ]);
    expect(service.overlapSeconds).toBe(0);
    expect(service.gaps).toEqual([{ from: 10, to: 25 }]);
    expect(service.maxGapSeconds).toBe(0.015);
    expect(report.strayActions).toEqual([]);
  });

  it('finds overlaps between different processes, and only those', () => {
    const entries = [
      { controller: 'route', component: KCM, identity: 'a', time: 0, action: 'started' },
      { controller: 'node-route-controller', component: CCM, identity: 'b', time: 4_000, action: 'started' },
      { controller: 'route', component: KCM, identity: 'a', time: 7_000, action: 'stopped' },
      { controller: 'route', component: KCM, identity: 'b', time: 5_000, action: 'started' }, // same process twice
    ];
    const report = analyzeLedger(entries, { window: { from: 0, to: 10_000 } });
    expect(report.controllers.route!.overlaps).toEqual([{ from: 4_000, to: 7_000, identities: ['a', 'b'] }]);
    expect(report.controllers.route!.overlapSeconds).toBe(3);
  });

  it('reports a gap for the whole window when nobody owns, and flags actions without a start', () => {
    const report = analyzeLedger(
      [{ controller: 'cloud-node', component: CCM, identity: 'x', time: 50, action: 'init node' }],
      { window: { from: 0, to: 100 }, controllers: ['cloud-node', 'route'] },
    );
    expect(report.controllers['cloud-node']!.gaps).toEqual([{ from: 0, to: 100 }]);
    expect(report.controllers.route!.maxGapSeconds).toBe(0.1);
    expect(report.strayActions).toHaveLength(1);
  });

  it('shows a controller no process is configured to run as such, not as a gap', () => {
    const declined = (identity: string, component: string) => ({
      controller: 'route',
      component,
      identity,
      time: 1,
      action: 'not-configured',
    });
    const report = analyzeLedger([declined('kcm-a', KCM), declined('ccm-b', CCM)], {
      window: { from: 0, to: 100 },
      controllers: ['route'],
    });
    expect(report.controllers.route).toMatchObject({ notConfigured: true, gaps: [], maxGapSeconds: 0 });
    expect(report.strayActions).toEqual([]);
    // One process declined, another ran it: its absence before is a real gap.
    const ran = analyzeLedger(
      [
        declined('kcm-a', KCM),
        { controller: 'route', component: CCM, identity: 'c', time: 40, action: 'started' },
      ],
      { window: { from: 0, to: 100 }, controllers: ['route'] },
    );
    expect(ran.controllers.route).toMatchObject({ gaps: [{ from: 0, to: 40 }] });
    expect(ran.controllers.route!.notConfigured).toBeUndefined();
  });

  it('exports JSON with ISO times and seconds', () => {
    const t = Date.UTC(2026, 0, 1);
    const report = analyzeLedger(
      [
        { controller: 'service', component: KCM, identity: 'a', time: t, action: 'started' },
        { controller: 'service', component: KCM, identity: 'a', time: t + 1500, action: 'stopped' },
      ],
      { window: { from: t, to: t + 2000 } },
    );
    expect(ownershipReportToJson(report)).toEqual({
      window: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T00:00:02.000Z' },
      controllers: {
        service: {
          intervals: [
            {
              identity: 'a',
              component: KCM,
              controller: 'service',
              from: '2026-01-01T00:00:00.000Z',
              to: '2026-01-01T00:00:01.500Z',
            },
          ],
          overlapSeconds: 0,
          overlaps: [],
          maxGapSeconds: 0.5,
          gaps: [{ from: '2026-01-01T00:00:01.500Z', to: '2026-01-01T00:00:02.000Z', seconds: 0.5 }],
        },
      },
    });
  });
});
