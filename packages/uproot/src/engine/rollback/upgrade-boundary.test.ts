import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import type { MigrationPlan } from '../../core/model/plan-types.js';
import { UprootError } from '../../errors/index.js';
import type { Journal } from '../journal/journal-schema.js';
import {
  beginApply,
  beginVerify,
  finishApply,
  finishVerify,
  journalPhase,
  recordChange,
} from '../journal/journal-transitions.js';
import { configMapPatch, journalFor, plan, step } from '../testing/plan-fixtures.js';
import { decodeJournal, encodeJournal } from '../journal/journal-codec.js';
import { nextAction } from '../next-action.js';
import { stepsToUndo } from './rollback-order.js';
import { runRollback, type RollbackActions } from './run-rollback.js';
import { RollbackAcrossUpgradeError, upgradeBoundary } from './upgrade-boundary.js';

/** A journey: the migration folds in 1.27, one hop to 1.28, and a step after the hop that can be undone. */
const journey: MigrationPlan = {
  ...plan([
    step('grant-migration-lease', [configMapPatch('rbac', 'k', 'v')]),
    step('switch-to-external', [configMapPatch('cluster', 'version', '1.27')]),
    step('upgrade-kubernetes-1.28', [configMapPatch('cluster', 'version', '1.28')]),
    step('disable-leader-migration', [configMapPatch('ccm', 'lm', 'off')]),
  ]),
  kubernetes: {
    current: 'v1.26.15',
    target: 'v1.28.15',
    upgrades: [
      { step: 'switch-to-external', version: 'v1.27.16', ccmTag: 'v1.27.6' },
      { step: 'upgrade-kubernetes-1.28', version: 'v1.28.15', ccmTag: 'v1.28.5' },
    ],
  },
};

function applied(p: MigrationPlan, count: number, lastOnlyStarted = false): Journal {
  let j = journalFor(p);
  p.steps.slice(0, count).forEach((s, i) => {
    j = beginApply(j, s.id, [{ change: 0, backup: { type: 'none', reason: 't' } }], 0);
    if (lastOnlyStarted && i === count - 1) return;
    j = recordChange(j, s.id, { change: 0, outcome: 'changed', at: '' }, 0);
    j = finishVerify(beginVerify(finishApply(j, s.id, 0), s.id, 0), s.id, 0);
  });
  return j;
}

function recorder() {
  const log: string[] = [];
  const actions: RollbackActions = {
    clock: new VirtualClock(0),
    undoChange: async ({ step: s }) => {
      log.push(`undo ${s.id}`);
      return { type: 'undone', detail: 'ok' };
    },
    applyPlanUndo: async () => ({ type: 'done', record: { outcome: 'confirmed' } }),
    runGate: async () => ({ result: { type: 'passed', after: 0 } }),
    saveJournal: async (j) => j,
  };
  return { actions, log };
}

describe('hops in the journal', () => {
  it('round-trip through the ConfigMap codec, one key per hop, and resume at the hop like any step', () => {
    const stopped = applied(journey, 3, true);
    const data = encodeJournal(stopped);
    expect(Object.keys(data)).toContain('step.upgrade-kubernetes-1.28.json');
    const decoded = decodeJournal(data, 'configmap kube-system/uproot-migration');
    expect(decoded).toEqual(stopped);
    expect(nextAction(decoded)).toEqual({ type: 'continue-apply', step: 'upgrade-kubernetes-1.28' });
    expect(nextAction(applied(journey, 2))).toEqual({ type: 'apply', step: 'upgrade-kubernetes-1.28' });
  });
});

describe('the upgrade boundary of a rollback', () => {
  it('is the last started step that changed the Kubernetes version', () => {
    expect(upgradeBoundary(applied(journey, 1))).toBeUndefined();
    expect(upgradeBoundary(applied(journey, 2))?.step.id).toBe('switch-to-external');
    expect(upgradeBoundary(applied(journey, 4))).toMatchObject({
      step: { id: 'upgrade-kubernetes-1.28' },
      version: 'v1.28.15',
    });
    // Started but not finished counts: the edit may have landed before a crash.
    expect(upgradeBoundary(applied(journey, 3, true))?.step.id).toBe('upgrade-kubernetes-1.28');
  });

  it('takes in an RKE2 hop\u2019s CCM move: a rollback leaves it with its hop and names the hop', async () => {
    const rke2: MigrationPlan = {
      ...journey,
      steps: [
        ...journey.steps.slice(0, 3),
        step('upgrade-ccm-1.28', [configMapPatch('ccm', 'tag', 'v1.28.5')]),
        step('disable-leader-migration', [configMapPatch('ccm', 'lm', 'off')]),
      ],
    };
    expect(upgradeBoundary(applied(rke2, 3))).toMatchObject({
      step: { id: 'upgrade-kubernetes-1.28' },
      upgrade: 'upgrade-kubernetes-1.28',
    });
    expect(upgradeBoundary(applied(rke2, 4, true))).toMatchObject({
      step: { id: 'upgrade-ccm-1.28' },
      upgrade: 'upgrade-kubernetes-1.28',
      version: 'v1.28.15',
    });
    expect(stepsToUndo(applied(rke2, 5)).map((s) => s.id)).toEqual(['disable-leader-migration']);
    expect(stepsToUndo(applied(rke2, 4))).toEqual([]);
    const { actions, log } = recorder();
    const error = await runRollback(applied(rke2, 4), actions).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UP-ROLLBACK-ACROSS-UPGRADE', step: 'upgrade-kubernetes-1.28' });
    expect(UprootError.is(error) && error.message).toContain('cannot roll back past upgrade-kubernetes-1.28');
    expect(log).toEqual([]);
  });

  it('limits the steps to undo to those after it', () => {
    expect(stepsToUndo(applied(journey, 4)).map((s) => s.id)).toEqual(['disable-leader-migration']);
    expect(stepsToUndo(applied(journey, 3))).toEqual([]);
    // Without upgrades in the plan, everything is undone as before.
    const sameVersion = { ...journey, kubernetes: { current: 'v1.26.15', target: 'v1.26.15' } };
    expect(stepsToUndo(applied(sameVersion, 4)).map((s) => s.id)).toEqual([
      'disable-leader-migration',
      'upgrade-kubernetes-1.28',
      'switch-to-external',
      'grant-migration-lease',
    ]);
  });
});

describe('runRollback across an upgrade', () => {
  it('refuses with a typed error, writing nothing, when nothing after the upgrade is left to undo', async () => {
    const saved: Journal[] = [];
    const r = recorder();
    const error = await runRollback(applied(journey, 3), {
      ...r.actions,
      saveJournal: async (j) => (saved.push(j), j),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RollbackAcrossUpgradeError);
    expect(UprootError.is(error) && error.code).toBe('UP-ROLLBACK-ACROSS-UPGRADE');
    expect(UprootError.is(error) && error.message).toContain('Kubernetes does not downgrade');
    expect(UprootError.is(error) && error.message).toContain('upgrade-kubernetes-1.28');
    expect(UprootError.is(error) && error.hint).toContain('uproot migrate --resume');
    expect(UprootError.is(error) && error.exitCode).toBe(2);
    expect(saved).toEqual([]);
    expect(r.log).toEqual([]);
  });

  it('refuses when a hop failed half-way too (it started, so the cluster may be partly upgraded)', async () => {
    const error = await runRollback(applied(journey, 3, true), recorder().actions).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UP-ROLLBACK-ACROSS-UPGRADE', step: 'upgrade-kubernetes-1.28' });
  });

  it('undoes the steps after the last upgrade, then stops before it with the reason', async () => {
    const r = recorder();
    const result = await runRollback(applied(journey, 4), r.actions);
    expect(r.log).toEqual(['undo disable-leader-migration']);
    expect(result).toMatchObject({
      type: 'stopped-at-upgrade',
      steps: ['disable-leader-migration'],
      step: 'upgrade-kubernetes-1.28',
    });
    if (result.type !== 'stopped-at-upgrade') throw new Error('unreachable');
    expect(result.error.exitCode).toBe(1);
    expect(result.journal.steps.map((s) => s.state)).toEqual([
      'verified',
      'verified',
      'verified',
      'rolled-back',
    ]);
    expect(journalPhase(result.journal)).toEqual({
      type: 'rolled-back',
      stoppedAt: 'upgrade-kubernetes-1.28',
    });
  });

  it('rolls back the migration step normally when it kept the version', async () => {
    const sameVersion = { ...journey, kubernetes: { current: 'v1.26.15', target: 'v1.26.15' } };
    const r = recorder();
    const result = await runRollback(applied(sameVersion, 2), r.actions);
    expect(result.type).toBe('rolled-back');
    expect(r.log).toEqual(['undo switch-to-external', 'undo grant-migration-lease']);
  });
});
