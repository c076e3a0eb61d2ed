import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../kubernetes-version/index.js';
import { controllersOf } from '../leader-migration/index.js';
import { analyzeLedger, createLedger, logicalControllerName } from './ledger.js';
import { ownershipReportToJson } from './ownership-report.js';

const KCM = 'kube-controller-manager';
const CCM = 'cloud-controller-manager';

describe('logical controller names (one name per controller, every era and manager)', () => {
  it.each([
    ['service', 'service'],
    ['service-lb-controller', 'service'],
    ['route', 'route'],
    ['node-route-controller', 'route'],
    ['cloud-node-lifecycle', 'cloud-node-lifecycle'],
    ['cloud-node-lifecycle-controller', 'cloud-node-lifecycle'],
    ['nodeipam', 'nodeipam'],
    ['node-ipam-controller', 'nodeipam'],
    ['cloud-node', 'cloud-node'],
    ['cloud-node-controller', 'cloud-node'],
    // The 1.28 KCM rename: the canonical name and its alias are one controller.
    ['serviceaccount-token', 'serviceaccount-token'],
    ['serviceaccount-token-controller', 'serviceaccount-token'],
    ['deployment-controller', 'deployment'],
    ['persistentvolume-attach-detach-controller', 'attachdetach'],
    ['garbage-collector-controller', 'garbagecollector'],
    // Names outside the tables stand for themselves.
    ['taint-eviction-controller', 'taint-eviction-controller'],
  ])('%s → %s', (name, logical) => expect(logicalControllerName(name)).toBe(logical));

  it('maps every name a manager of either era keys its controllers with to one name per controller', () => {
    for (const component of [KCM, CCM] as const) {
      const legacy = controllersOf(component, parseKubernetesVersion('1.27.16'));
      const canonical = controllersOf(component, parseKubernetesVersion('1.28.15'));
      expect(canonical).toHaveLength(legacy.length);
      expect(new Set(canonical.map(logicalControllerName))).toEqual(
        new Set(legacy.map(logicalControllerName)),
      );
      expect(new Set(canonical.map(logicalControllerName)).size).toBe(canonical.length);
    }
  });
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
    if (service.state !== 'running') throw new Error(`service is ${service.state}`);
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
    expect(report.controllers.route).toMatchObject({ state: 'running', overlapSeconds: 3 });
  });

  it('counts a controller from its first run: before that it is not yet running, not a gap', () => {
    const report = analyzeLedger(
      [
        { controller: 'cloud-node', component: CCM, identity: 'x', time: 50, action: 'init node' },
        { controller: 'cloud-node-controller', component: CCM, identity: 'y', time: 48, action: 'started' },
      ],
      { window: { from: 0, to: 100 }, controllers: ['cloud-node', 'route'] },
    );
    expect(report.controllers['cloud-node']).toMatchObject({
      state: 'running',
      firstRunAt: 48,
      gaps: [],
      maxGapSeconds: 0,
    });
    // Nobody ran route in the window and nobody declined it: not yet running, with no figures at all.
    expect(report.controllers.route).toEqual({
      state: 'not-yet-running',
      intervals: [],
      overlaps: [],
      gaps: [],
    });
    // x acted on cloud-node without having started it: a recorder bug, flagged.
    expect(report.strayActions).toHaveLength(1);
  });

  it('counts a run that started and stopped at one instant: the wait for the next run is a gap', () => {
    // A manager replaced the moment the window began (a virtual clock that had not moved yet).
    const report = analyzeLedger(
      [
        { controller: 'service', component: KCM, identity: 'kcm-a', time: 10, action: 'started' },
        { controller: 'service', component: KCM, identity: 'kcm-a', time: 10, action: 'stopped' },
        { controller: 'service', component: KCM, identity: 'kcm-b', time: 50_000, action: 'started' },
      ],
      { window: { from: 10, to: 60_000 } },
    );
    expect(report.controllers.service).toMatchObject({
      state: 'running',
      firstRunAt: 10,
      gaps: [{ from: 10, to: 50_000 }],
      maxGapSeconds: 49.99,
    });
  });

  it('merges the 1.28 rename into one controller whose gap is only the restart between the two names', () => {
    const report = analyzeLedger(
      [
        {
          controller: 'serviceaccount-token',
          component: KCM,
          identity: 'kcm-127',
          time: 10,
          action: 'started',
        },
        {
          controller: 'serviceaccount-token',
          component: KCM,
          identity: 'kcm-127',
          time: 40,
          action: 'stopped',
        },
        {
          controller: 'serviceaccount-token-controller',
          component: KCM,
          identity: 'kcm-128',
          time: 45,
          action: 'started',
        },
      ],
      { window: { from: 0, to: 100 } },
    );
    expect(Object.keys(report.controllers)).toEqual(['serviceaccount-token']);
    expect(report.controllers['serviceaccount-token']).toMatchObject({
      state: 'running',
      gaps: [{ from: 40, to: 45 }],
      maxGapSeconds: 0.005,
    });
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
    expect(report.controllers.route).toEqual({
      state: 'not-configured',
      intervals: [],
      overlaps: [],
      gaps: [],
    });
    expect(report.strayActions).toEqual([]);
    // One process declined, another ran it from 40: running from then on, with no gap before its first run.
    const ran = analyzeLedger(
      [
        declined('kcm-a', KCM),
        { controller: 'route', component: CCM, identity: 'c', time: 40, action: 'started' },
      ],
      { window: { from: 0, to: 100 }, controllers: ['route'] },
    );
    expect(ran.controllers.route).toMatchObject({
      state: 'running',
      firstRunAt: 40,
      gaps: [],
      maxGapSeconds: 0,
    });
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
          state: 'running',
          firstRunAt: '2026-01-01T00:00:00.000Z',
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
