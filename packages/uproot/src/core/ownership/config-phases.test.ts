import { describe, expect, it } from 'vitest';
import type { GateRecord, StepRecord } from '../../engine/journal/journal-schema.js';
import { flagsGate as flags, plan, step } from '../../engine/testing/plan-fixtures.js';
import type { Gate, StepId } from '../model/plan-types.js';
import { configPhases, phasesAt } from './config-phases.js';
import type { MigrationHistory } from './migration-history.js';
import { findOwnershipOverlaps, ownershipInference } from './overlaps.js';
import { CCM, KCM, MIG, T0, at, described, managerPod, timelineOf, took } from './ownership-test-support.js';
import { holdersOf, observationsFromRecords } from './profiled-inference.js';

const rollout: Gate = {
  type: 'daemonset-rolled-out',
  namespace: 'kube-system',
  name: 'ccm',
  timeoutSeconds: 60,
};

/** RKE2's shape: leader migration on the KCMs, the CCM chart, then the switch to external. */
const rke2Like = plan(
  [
    step('enable-leader-migration', [], [flags('aws', true)]),
    step('install-ccm', []),
    step('switch-to-external', [], [flags('external', false), rollout, { type: 'no-ownership-overlap' }]),
  ],
  'rke2',
);

const passed = (gate: Gate, s: number): GateRecord => ({
  gate,
  startedAt: at(s - 1),
  finishedAt: at(s),
  result: { type: 'passed', after: 1000 },
});
const base = (id: StepId, startedS: number) => ({ id, startedAt: at(startedS), backups: [], changes: [] });
const verified = (id: StepId, startedS: number, gates: GateRecord[]): StepRecord => ({
  ...base(id, startedS),
  state: 'verified',
  appliedAt: at(startedS + 1),
  verifiedAt: at(startedS + 60),
  gates,
});
const verifying = (id: StepId, startedS: number, gates: GateRecord[]): StepRecord => ({
  ...base(id, startedS),
  state: 'verifying',
  appliedAt: at(startedS + 1),
  gates,
});
const rolledBack = (id: StepId, startedS: number, rolledBackS: number): StepRecord => ({
  ...base(id, startedS),
  state: 'rolled-back',
  rolledBackAt: at(rolledBackS),
  gates: [],
});

const forward: MigrationHistory = {
  plan: rke2Like,
  steps: [
    verified('enable-leader-migration', 100, [passed(flags('aws', true), 150)]),
    verified('install-ccm', 200, []),
    verifying('switch-to-external', 300, [passed(flags('external', false), 350), passed(rollout, 360)]),
  ],
};
const sources = (history: MigrationHistory, component: typeof KCM | typeof CCM, s: number) =>
  phasesAt(configPhases(history, component), T0 + s * 1000).map((p) => p.source);

describe('configuration phases from the plan and the journal', () => {
  it('opens a phase when its step starts and closes the one before when the step proves the rollout', () => {
    expect(sources(forward, KCM, 120)).toEqual(['before', 'enable-leader-migration']);
    expect(sources(forward, KCM, 200)).toEqual(['enable-leader-migration']);
    expect(sources(forward, KCM, 320)).toEqual(['enable-leader-migration', 'switch-to-external']);
    expect(sources(forward, KCM, 400)).toEqual(['switch-to-external']);
    // A CCM seen once install-ccm started is uproot's.
    expect(sources(forward, CCM, 150)).toEqual(['before']);
    expect(sources(forward, CCM, 250)).toEqual(['install-ccm']);
    const [, enable, external] = configPhases(forward, KCM);
    expect(enable?.candidates.map((c) => [c.migrating, c.profile.cloudControllers])).toEqual([[true, true]]);
    expect(external?.candidates.every((c) => !c.migrating && !c.profile.cloudControllers)).toBe(true);
  });

  it('brings a configuration back from when undoing the step after it began', () => {
    const undoing: MigrationHistory = {
      plan: rke2Like,
      steps: [
        verified('enable-leader-migration', 100, [passed(flags('aws', true), 150)]),
        rolledBack('install-ccm', 200, 520),
        rolledBack('switch-to-external', 300, 500),
      ],
      rollback: { startedAt: at(450), undoing: 'enable-leader-migration' },
    };
    // Undoing the switch began at the rollback's start; undoing the first step only after the later undos.
    expect(sources(undoing, KCM, 480)).toEqual(['enable-leader-migration', 'switch-to-external']);
    expect(sources(undoing, KCM, 530)).toEqual(['before', 'enable-leader-migration', 'switch-to-external']);
    // A rolled-back record lost its proof gate, but the next step only started once the step was verified.
    const done: MigrationHistory = {
      ...undoing,
      steps: [rolledBack('enable-leader-migration', 100, 540), ...undoing.steps.slice(1)],
      rollback: { startedAt: at(450), completedAt: at(540) },
    };
    expect(sources(done, KCM, 190)).toEqual(['before', 'enable-leader-migration']);
    expect(sources(done, KCM, 210)).toEqual(['enable-leader-migration']);
  });

  it('judges a KCM replaced during the switch by the phase it ran in, not as in-tree', () => {
    // cp2's migrating KCM led kube-controller-manager while the CCM took the migration lease, then cp2 rolled.
    const timeline = timelineOf(
      [
        took(KCM, 'cp1_a', 160),
        took(MIG, 'cp1_a', 160),
        took(CCM, 'cp3_c', 210),
        took(KCM, 'cp2_b', 310),
        took(MIG, 'cp3_c', 315),
        took(KCM, 'cp2_n', 340),
      ],
      370,
    );
    const pods = {
      [KCM]: ['cp1', 'cp2'].map((n) =>
        managerPod(KCM, n, ['--cloud-provider=external'], { version: '1.26.15', startedS: 330 }),
      ),
      [CCM]: [
        managerPod(CCM, 'cp3', ['--cloud-provider=aws', '--enable-leader-migration'], {
          version: '1.26.11',
          startedS: 205,
        }),
      ],
    };
    const evidence = { now: T0 + 370_000, pods, history: forward };
    expect(findOwnershipOverlaps(timeline, ownershipInference, evidence)).toEqual({
      overlaps: [],
      bases: { pod: 2, plan: 2 },
    });
    // Without the journal, cp2_b is unknown and judged as running everything: an overlap is reported.
    const { history: _h, ...withoutHistory } = evidence;
    expect(described(findOwnershipOverlaps(timeline, ownershipInference, withoutHistory))).toMatch(/cp2_b/);
  });
});

describe('the journal timeline as observations', () => {
  it('ends a holder the latest record shows not renewing for longer than its lease, and drops its stale sightings', () => {
    const timeline = [
      took(CCM, 'cp2_c', 0),
      { ...took(CCM, 'cp2_c', 0), observedAt: at(100) }, // renewTime still 0 s: dead since
    ];
    const obs = observationsFromRecords(timeline);
    expect(obs.map((o) => [o.time - T0, o.holderIdentity])).toEqual([
      [0, 'cp2_c'],
      [20_000, ''],
    ]);
    expect(obs[0]!.leaseDurationSeconds).toBe(Infinity);
  });
  it('lists every main-lease holder with when it was first seen and whether it held the migration lease', () => {
    const obs = observationsFromRecords([
      took(MIG, 'cp1_a', 5),
      took(KCM, 'cp1_a', 7),
      took(CCM, 'cp2_c', 9),
    ]);
    expect(holdersOf(obs, MIG)).toEqual([
      { identity: 'cp1_a', component: KCM, firstSeen: T0 + 5_000, heldMigrationLease: true },
      { identity: 'cp2_c', component: CCM, firstSeen: T0 + 9_000, heldMigrationLease: false },
    ]);
  });
});

describe('looks made at the instant a step started', () => {
  // Virtual time runs a step's requests in no time: install-ccm starts, Rancher delivers the chart and the
  // CCM takes its lease, all at 200 s; the next step's gate sees it at 200 s too.
  const history: MigrationHistory = {
    plan: rke2Like,
    steps: [
      verified('enable-leader-migration', 100, [passed(flags('aws', true), 150)]),
      verified('install-ccm', 200, []),
      verifying('switch-to-external', 200, []),
    ],
  };
  const changes = (step?: StepId) => [
    took(KCM, 'cp1_a', 150),
    took(MIG, 'cp1_a', 150),
    { ...took(CCM, 'cp2_c', 200), ...(step ? { step } : {}) },
  ];
  const judge = (step?: StepId) =>
    described(
      findOwnershipOverlaps(timelineOf(changes(step), 260), ownershipInference, {
        now: T0 + 260_000,
        history,
      }),
    );

  it('a CCM first seen by a look of a later step is the one install-ccm installed, not one from before', () => {
    expect(judge('switch-to-external')).toBe('');
    const phases = configPhases(history, CCM);
    const look = { step: 'switch-to-external' as const, steps: rke2Like.steps.map((s) => s.id) };
    expect(phasesAt(phases, T0 + 200_000, look).map((p) => p.source)).toEqual(['install-ccm']);
  });

  it('without the look\u2019s step (a journal from before it was kept), or by a look of an earlier step, both stay possible', () => {
    expect(judge()).toMatch(/cp2_c/);
    const phases = configPhases(history, CCM);
    const earlier = { step: 'enable-leader-migration' as const, steps: rke2Like.steps.map((s) => s.id) };
    expect(phasesAt(phases, T0 + 200_000, earlier).map((p) => p.source)).toEqual(['before', 'install-ccm']);
    expect(phasesAt(phases, T0 + 200_000).map((p) => p.source)).toEqual(['before', 'install-ccm']);
  });
});
