import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';
import { defaultLeaderMigrationConfiguration } from '../leader-migration/index.js';
import { compareOwnership } from './compare.js';
import { analyzeLedger } from './ledger.js';
import type { LeaseObservation } from './index.js';
import { inferOwnership, leaseHolderTimeline, type ManagerProfile } from './lease-timeline.js';

const v126 = parseKubernetesVersion('1.26');
const v127 = parseKubernetesVersion('1.27');
const v130 = parseKubernetesVersion('1.30');
const KCM = 'kube-controller-manager';
const CCM = 'cloud-controller-manager';
const MIG = 'cloud-provider-extraction-migration';

/** A holder renewing `lease` every 2 s from `from` to `to` (exclusive), as a 1 s poller would see it. */
function renewals(lease: string, holder: string, from: number, to: number, lds = 15): LeaseObservation[] {
  const out: LeaseObservation[] = [];
  for (let t = from; t < to; t += 2_000) {
    out.push({
      time: t,
      name: lease,
      present: true,
      holderIdentity: holder,
      leaseDurationSeconds: lds,
      resourceVersion: `${lease}-${holder}-${t}`,
    });
  }
  return out;
}

const migrating = (version = v126): ManagerProfile => ({
  version,
  migration: defaultLeaderMigrationConfiguration(version)!,
  cloudControllers: true,
});

describe('leaseHolderTimeline', () => {
  it('follows renewals, ends a span on a new holder, and expires an unrenewed one at last change + duration', () => {
    const obs = [
      ...renewals(KCM, 'a', 0, 10_000), // last change at 8 s
      ...renewals(KCM, 'b', 30_000, 40_000),
    ];
    expect(leaseHolderTimeline(obs, KCM, 50_000)).toEqual([
      { holder: 'a', from: 0, to: 23_000, end: 'expired' },
      { holder: 'b', from: 30_000, to: 50_000, end: 'open' },
    ]);
  });

  it('treats a released lease (holder "") and a deleted lease as nobody', () => {
    const obs: LeaseObservation[] = [
      ...renewals(CCM, 'a', 0, 4_000),
      {
        time: 5_000,
        name: CCM,
        present: true,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        resourceVersion: 'r',
      },
      ...renewals(CCM, 'b', 6_000, 8_000),
      { time: 9_000, name: CCM, present: false, holderIdentity: '', leaseDurationSeconds: 0 },
    ];
    expect(leaseHolderTimeline(obs, CCM, 20_000)).toEqual([
      { holder: 'a', from: 0, to: 5_000, end: 'changed' },
      { holder: 'b', from: 6_000, to: 9_000, end: 'changed' },
    ]);
  });

  it('does not count an unchanged record (same resourceVersion) as a renewal', () => {
    const first: LeaseObservation = {
      time: 0,
      name: KCM,
      present: true,
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      resourceVersion: '1',
    };
    const obs = [first, ...[1, 2, 3, 20].map((s) => ({ ...first, time: s * 1000 }))];
    expect(leaseHolderTimeline(obs, KCM, 30_000)).toEqual([
      { holder: 'a', from: 0, to: 15_000, end: 'expired' },
    ]);
  });
});

describe('inferOwnership', () => {
  const window = { from: 0, to: 120_000 };

  it('handover: the migrated controllers follow the migration lease from a KCM to the CCM', () => {
    const obs = [
      ...renewals(KCM, 'kcm-1', 0, 120_000),
      ...renewals(MIG, 'kcm-1', 0, 40_000),
      ...renewals(CCM, 'ccm-1', 10_000, 120_000),
      ...renewals(MIG, 'ccm-1', 60_000, 120_000),
    ];
    const t = inferOwnership({
      observations: obs,
      profiles: { [KCM]: migrating(v126), [CCM]: migrating(v127) },
      window,
    });
    expect(t.controllers.service!.intervals.map((i) => [i.identity, i.component, i.from, i.to])).toEqual([
      ['kcm-1', KCM, 0, 53_000],
      ['ccm-1', CCM, 60_000, 120_000],
    ]);
    expect(t.controllers.service).toMatchObject({ state: 'running', overlapSeconds: 0 });
    expect(t.controllers.service).toMatchObject({ state: 'running', maxGapSeconds: 7 });
    // nodeipam is not migrated: it stays with the KCM main-lease holder; cloud-node exists only in the CCM.
    expect(t.controllers.nodeipam!.intervals.map((i) => i.identity)).toEqual(['kcm-1']);
    expect(t.controllers['cloud-node']!.intervals.map((i) => [i.identity, i.from])).toEqual([
      ['ccm-1', 10_000],
    ]);
  });

  it('crash + expiry: a dead holder owns until its lease expires, then nobody until the next holder is seen', () => {
    const obs = [
      ...renewals(KCM, 'kcm-1', 0, 30_000), // crash just after 28 s
      ...renewals(MIG, 'kcm-1', 0, 30_000),
      ...renewals(KCM, 'kcm-2', 44_000, 120_000),
      ...renewals(MIG, 'kcm-2', 46_000, 120_000),
    ];
    const t = inferOwnership({
      observations: obs,
      profiles: { [KCM]: migrating(), [CCM]: migrating(v127) },
      window,
    });
    const route = t.controllers.route!;
    expect(route.intervals.map((i) => [i.identity, i.from, i.to])).toEqual([
      ['kcm-1', 0, 43_000],
      ['kcm-2', 46_000, 120_000],
    ]);
    expect(t.leases.kcm[0]).toMatchObject({ holder: 'kcm-1', end: 'expired', to: 43_000 });
    expect(route.gaps).toEqual([{ from: 43_000, to: 46_000 }]);
  });

  it('no migration: an in-tree KCM owns the cloud controllers under its main lease; an external one does not', () => {
    const obs = [...renewals(KCM, 'kcm-old', 0, 50_000), ...renewals(KCM, 'kcm-new', 70_000, 120_000)];
    const t = inferOwnership({
      observations: obs,
      profiles: {
        [KCM]: { version: v126, cloudControllers: true },
        [CCM]: { version: v127, cloudControllers: true },
      },
      identityProfiles: { 'kcm-new': { version: v127, cloudControllers: false } },
      window,
    });
    expect(t.controllers.service!.intervals.map((i) => i.identity)).toEqual(['kcm-old']);
    expect(t.controllers.nodeipam!.intervals.map((i) => i.identity)).toEqual(['kcm-old', 'kcm-new']);
  });

  it('both eras: a 1.30 CCM on the default config runs service under its main lease while a 1.26 KCM holds the migration lease', () => {
    const obs = [
      ...renewals(KCM, 'kcm-1', 0, 120_000),
      ...renewals(MIG, 'kcm-1', 0, 120_000),
      ...renewals(CCM, 'ccm-1', 30_000, 120_000),
    ];
    const t = inferOwnership({
      observations: obs,
      profiles: { [KCM]: migrating(v126), [CCM]: migrating(v130) },
      window,
    });
    // The reference's §6 hazard, visible from the outside: service-lb-controller is non-migrated in the CCM.
    expect(t.controllers.service!.overlaps).toEqual([
      { from: 30_000, to: 120_000, identities: ['ccm-1', 'kcm-1'] },
    ]);
    expect(t.controllers.service).toMatchObject({ state: 'running', overlapSeconds: 90 });
    // cloud-node-lifecycle-controller matches the 1.28+ default entry: it stays migrated, no overlap.
    expect(t.controllers['cloud-node-lifecycle']).toMatchObject({ state: 'running', overlapSeconds: 0 });

    // With a union config of both eras' names, the hazard is gone.
    const union = {
      leaderName: MIG,
      resourceLock: 'leases',
      controllerLeaders: [
        'route',
        'service',
        'cloud-node-lifecycle',
        'node-route-controller',
        'service-lb-controller',
        'cloud-node-lifecycle-controller',
      ].map((name) => ({ name, component: '*' })),
    };
    const safe = inferOwnership({
      observations: obs,
      profiles: {
        [KCM]: { version: v126, migration: union, cloudControllers: true },
        [CCM]: { version: v130, migration: union, cloudControllers: true },
      },
      window,
    });
    expect(safe.controllers.service).toMatchObject({ state: 'running', overlapSeconds: 0 });
  });
});

describe('compareOwnership', () => {
  it('explains observation lag after a change and flags a real difference', () => {
    const truth = analyzeLedger(
      [
        { controller: 'service', component: KCM, identity: 'a', time: 0, action: 'started' },
        { controller: 'service', component: KCM, identity: 'a', time: 20_000, action: 'stopped' },
        { controller: 'service', component: CCM, identity: 'b', time: 36_000, action: 'started' },
      ],
      { window: { from: 0, to: 100_000 } },
    );
    const lagging = analyzeLedger(
      [
        { controller: 'service', component: KCM, identity: 'a', time: 0, action: 'started' },
        { controller: 'service', component: KCM, identity: 'a', time: 33_000, action: 'stopped' }, // dead until expiry
        { controller: 'service', component: CCM, identity: 'b', time: 37_000, action: 'started' },
      ],
      { window: { from: 0, to: 100_000 } },
    );
    const diffs = compareOwnership(truth, lagging, { toleranceMs: 16_000 });
    expect(diffs.map((d) => [d.from, d.to, d.explained])).toEqual([
      [20_000, 33_000, true],
      [36_000, 37_000, true],
    ]);
    const wrong = analyzeLedger(
      [{ controller: 'service', component: KCM, identity: 'c', time: 0, action: 'started' }],
      { window: { from: 0, to: 100_000 } },
    );
    expect(compareOwnership(truth, wrong, { toleranceMs: 16_000 }).some((d) => !d.explained)).toBe(true);
  });
});
