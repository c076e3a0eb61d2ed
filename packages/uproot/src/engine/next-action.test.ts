import { describe, expect, it } from 'vitest';
import type { StepRecord } from './journal/journal-schema.js';
import {
  beginApply,
  beginVerify,
  failStep,
  finishApply,
  finishVerify,
  journalPhase,
  markRolledBack,
  recordChange,
  startRollback,
} from './journal/journal-transitions.js';
import { nextAction } from './next-action.js';
import { configMapPatch, cordon, journalFor, plan, step } from './testing/plan-fixtures.js';

const p = plan([
  step('grant-migration-lease', [configMapPatch('a', 'k', 'v')]),
  step('cordon-control-plane', [cordon()]),
  step('install-ccm', [configMapPatch('b', 'k', 'v'), configMapPatch('c', 'k', 'v')]),
]);
const t = Date.UTC(2026, 0, 1);

function at(states: StepRecord['state'][]) {
  let j = journalFor(p);
  p.steps.forEach((s, i) => {
    const state = states[i]!;
    if (state === 'pending') return;
    j = beginApply(j, s.id, [], t);
    if (state === 'applying') return;
    if (state === 'failed') {
      j = failStep(j, s.id, { phase: 'apply', code: 'X', reason: 'r', fix: 'f' }, t);
      return;
    }
    j = finishApply(j, s.id, t);
    if (state === 'applied') return;
    j = beginVerify(j, s.id, t);
    if (state === 'verifying') return;
    j = finishVerify(j, s.id, t);
    if (state === 'rolled-back') j = markRolledBack(j, s.id, [], t);
  });
  return j;
}

describe('nextAction', () => {
  it.each([
    [['pending', 'pending', 'pending'], { type: 'apply', step: 'grant-migration-lease' }],
    [['applying', 'pending', 'pending'], { type: 'continue-apply', step: 'grant-migration-lease' }],
    [['applied', 'pending', 'pending'], { type: 'verify', step: 'grant-migration-lease' }],
    [['verifying', 'pending', 'pending'], { type: 'verify', step: 'grant-migration-lease' }],
    [['verified', 'pending', 'pending'], { type: 'apply', step: 'cordon-control-plane' }],
    [['verified', 'failed', 'pending'], { type: 'continue-apply', step: 'cordon-control-plane' }],
    [['verified', 'verified', 'verifying'], { type: 'verify', step: 'install-ccm' }],
    [['verified', 'verified', 'verified'], { type: 'done' }],
  ] as const)('%j → %j', (states, expected) => {
    expect(nextAction(at([...states]))).toEqual(expected);
  });

  it('re-verifies a step whose gates failed', () => {
    let j = at(['verifying', 'pending', 'pending']);
    j = failStep(j, 'grant-migration-lease', { phase: 'verify', code: 'G', reason: 'r', fix: 'f' }, t);
    expect(nextAction(j)).toEqual({ type: 'verify', step: 'grant-migration-lease' });
    expect(beginVerify(j, 'grant-migration-lease', t).steps[0]).toMatchObject({
      state: 'verifying',
      gates: [],
    });
  });

  it('stops after the --until step, not before it is verified', () => {
    expect(nextAction(at(['verified', 'applied', 'pending']), { until: 'cordon-control-plane' })).toEqual({
      type: 'verify',
      step: 'cordon-control-plane',
    });
    expect(nextAction(at(['verified', 'verified', 'pending']), { until: 'cordon-control-plane' })).toEqual({
      type: 'stop',
      after: 'cordon-control-plane',
    });
  });

  it('refuses to continue a rolled back migration', () => {
    expect(nextAction(at(['verified', 'rolled-back', 'pending']))).toEqual({ type: 'rolled-back' });
    expect(nextAction(startRollback(at(['verified', 'verified', 'pending']), t))).toEqual({
      type: 'rolled-back',
    });
  });
});

describe('journal transitions', () => {
  it('keeps the first backups and finished changes when a step is applied again', () => {
    let j = beginApply(
      journalFor(p),
      'install-ccm',
      [{ change: 0, backup: { type: 'none', reason: 'first' } }],
      t,
    );
    j = recordChange(j, 'install-ccm', { change: 0, outcome: 'changed', at: 'x' }, t);
    j = beginApply(
      j,
      'install-ccm',
      [
        { change: 0, backup: { type: 'none', reason: 'second' } },
        { change: 1, backup: { type: 'none', reason: 'second' } },
      ],
      t,
    );
    const record = j.steps[2]!;
    expect(record.state).toBe('applying');
    if (record.state !== 'applying') return;
    expect(record.backups).toEqual([
      { change: 0, backup: { type: 'none', reason: 'first' } },
      { change: 1, backup: { type: 'none', reason: 'second' } },
    ]);
    expect(record.changes.map((c) => c.change)).toEqual([0]);
  });

  it('rejects impossible transitions as bugs', () => {
    expect(() => finishApply(journalFor(p), 'install-ccm', t)).toThrow(/cannot finish applying/);
    expect(() => beginVerify(journalFor(p), 'install-ccm', t)).toThrow(/cannot begin verifying/);
  });

  it('reports the phase of the migration', () => {
    expect(journalPhase(journalFor(p))).toEqual({ type: 'not-started' });
    expect(journalPhase(at(['verified', 'applying', 'pending']))).toEqual({
      type: 'in-progress',
      step: 'cordon-control-plane',
      state: 'applying',
    });
    expect(journalPhase(at(['verified', 'verified', 'verified']))).toEqual({ type: 'completed' });
  });
});
