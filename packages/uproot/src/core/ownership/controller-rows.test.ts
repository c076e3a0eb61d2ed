import { describe, expect, it } from 'vitest';
import { controllerRows, controllerRowsJson, controllerRowText } from './controller-rows.js';
import { analyzeLedger, type LedgerEntry } from './ledger.js';

const KCM = 'kube-controller-manager';
const CCM = 'cloud-controller-manager';

const entry = (controller: string, component: string, identity: string, time: number, action: string) =>
  ({ controller, component, identity, time, action }) satisfies LedgerEntry;

/** A migration in miniature: the KCM hands service and cloud-node-lifecycle over, route is never run. */
function migration(nodeipamInCcm: boolean): LedgerEntry[] {
  return [
    entry('serviceaccount-token', KCM, 'kcm-1', 0, 'started'),
    entry('service', KCM, 'kcm-1', 0, 'started'),
    entry('cloud-node-lifecycle', KCM, 'kcm-1', 0, 'started'),
    entry('nodeipam', KCM, 'kcm-1', 0, 'started'),
    entry('route', KCM, 'kcm-1', 0, 'not-configured'),
    entry('route', CCM, 'ccm-1', 10, 'not-configured'),
    entry('cloud-node-controller', CCM, 'ccm-1', 10, 'started'),
    entry('service', KCM, 'kcm-1', 20, 'stopped'),
    entry('cloud-node-lifecycle', KCM, 'kcm-1', 20, 'stopped'),
    entry('service-lb-controller', CCM, 'ccm-1', 25, 'started'),
    entry('cloud-node-lifecycle-controller', CCM, 'ccm-1', 25, 'started'),
    ...(nodeipamInCcm
      ? [
          entry('nodeipam', KCM, 'kcm-1', 20, 'stopped'),
          entry('node-ipam-controller', CCM, 'ccm-1', 25, 'started'),
        ]
      : []),
    entry('attachdetach', KCM, 'kcm-1', 0, 'started'),
  ];
}

describe('controllerRows: the one account every output prints', () => {
  it('lists the migrated controllers first, then the others alphabetically, each with its state', () => {
    const rows = controllerRows(analyzeLedger(migration(false), { window: { from: 0, to: 100_000 } }));
    expect(rows.map((r) => [r.name, r.migrated, r.state])).toEqual([
      ['route', true, 'not-configured'],
      ['service', true, 'running'],
      ['cloud-node-lifecycle', true, 'running'],
      ['attachdetach', false, 'running'],
      ['cloud-node', false, 'running'],
      // nodeipam stayed in the KCM: it does not move, so it is listed with the others.
      ['nodeipam', false, 'running'],
      ['serviceaccount-token', false, 'running'],
    ]);
    expect(rows.find((r) => r.name === 'service')).toEqual({
      name: 'service',
      migrated: true,
      state: 'running',
      overlapSeconds: 0,
      maxGapSeconds: 0.005,
    });
  });

  it('lists nodeipam with the migrated controllers where the CCM runs it', () => {
    const rows = controllerRows(analyzeLedger(migration(true), { window: { from: 0, to: 100_000 } }));
    expect(rows.slice(0, 4).map((r) => r.name)).toEqual([
      'route',
      'service',
      'cloud-node-lifecycle',
      'nodeipam',
    ]);
    expect(rows[3]).toMatchObject({ migrated: true, state: 'running', maxGapSeconds: 0.005 });
  });

  it('renders figures, or the words for why there are none, and JSON keyed in row order', () => {
    const report = analyzeLedger(migration(false), {
      window: { from: 0, to: 100_000 },
      controllers: ['route', 'service', 'cloud-node-lifecycle', 'ttl'],
    });
    const rows = controllerRows(report);
    expect(rows.map(controllerRowText)).toEqual([
      'not run: neither manager is configured to run it',
      'overlap 0 s, largest gap 0.005 s',
      'overlap 0 s, largest gap 0.005 s',
      'not yet running',
    ]);
    const json = controllerRowsJson(rows);
    expect(Object.keys(json)).toEqual(['route', 'service', 'cloud-node-lifecycle', 'ttl']);
    expect(json.route).toEqual({ migrated: true, state: 'not-configured' });
    expect(json.ttl).toEqual({ migrated: false, state: 'not-yet-running' });
    expect(json.service).toEqual({
      migrated: true,
      state: 'running',
      overlapSeconds: 0,
      maxGapSeconds: 0.005,
    });
  });
});
