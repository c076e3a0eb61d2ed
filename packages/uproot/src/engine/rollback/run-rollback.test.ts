import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import type { Gate } from '../../core/model/plan-types.js';
import type { Journal } from '../journal/journal-schema.js';
import {
  beginApply,
  finishApply,
  beginVerify,
  finishVerify,
  recordChange,
} from '../journal/journal-transitions.js';
import { configMapPatch, cordon, journalFor, manual, plan, step } from '../testing/plan-fixtures.js';
import { gatesAfterUndo, stepsToUndo } from './rollback-order.js';
import { runRollback, type RollbackActions } from './run-rollback.js';

const g = (name: string): Gate => ({
  type: 'daemonset-rolled-out',
  namespace: 'ns',
  name,
  timeoutSeconds: 5,
});
const lb: Gate = { type: 'load-balancers-kept', timeoutSeconds: 5 };
const p = plan([
  step('grant-migration-lease', [configMapPatch('rbac', 'k', 'v')], [g('a')]),
  step('cordon-control-plane', [cordon()], [g('b'), lb]),
  step(
    'roll-control-plane',
    [configMapPatch('x', 'k', 'v'), manual('replace the nodes')],
    [g('c')],
    [manual('put the old nodes back')],
  ),
  step('verify-provider-ids', [], [g('d')]),
]);

function verifiedUpTo(count: number): Journal {
  let j = journalFor(p);
  for (const s of p.steps.slice(0, count)) {
    j = beginApply(
      j,
      s.id,
      s.changes.map((_, i) => ({ change: i, backup: { type: 'none', reason: 't' } })),
      0,
    );
    s.changes.forEach((_, i) => (j = recordChange(j, s.id, { change: i, outcome: 'changed', at: '' }, 0)));
    j = finishVerify(beginVerify(finishApply(j, s.id, 0), s.id, 0), s.id, 0);
  }
  return j;
}

function recorder(options: { failGate?: string } = {}) {
  const log: string[] = [];
  let saved: Journal | undefined;
  const actions: RollbackActions = {
    clock: new VirtualClock(0),
    undoChange: async ({ step: s, index }) => {
      log.push(`undo ${s.id}#${index}`);
      return { type: 'undone', detail: 'ok' };
    },
    applyPlanUndo: async ({ step: s, change }) => {
      log.push(`plan-undo ${s.id} ${change.type}`);
      return { type: 'done', record: { outcome: 'confirmed' } };
    },
    runGate: async ({ step: s, gate }) => {
      log.push(`gate ${s.id} ${gate.type}${gate.type === 'daemonset-rolled-out' ? ` ${gate.name}` : ''}`);
      return options.failGate === s.id
        ? { result: { type: 'timed-out', last: 'not yet', fix: 'wait' } }
        : { result: { type: 'passed', after: 0 } };
    },
    saveJournal: async (j) => (saved = j),
  };
  return { actions, log, saved: () => saved };
}

describe('rollback order and gates', () => {
  it('undoes only steps that started, last first', () => {
    expect(stepsToUndo(verifiedUpTo(2)).map((s) => s.id)).toEqual([
      'cordon-control-plane',
      'grant-migration-lease',
    ]);
    expect(stepsToUndo(journalFor(p))).toEqual([]);
  });
  it('proves an undo with the gates of the step before, and the invariants before the first step', () => {
    expect(gatesAfterUndo(p, p.steps[2]!)).toEqual([g('b'), lb]);
    expect(gatesAfterUndo(p, p.steps[0]!)).toEqual([lb]);
  });
});

describe('runRollback', () => {
  it('undoes changes in reverse, applies the plan’s undo for manual changes, and checks gates after each step', async () => {
    const r = recorder();
    const result = await runRollback(verifiedUpTo(3), r.actions);
    expect(result).toMatchObject({
      type: 'rolled-back',
      steps: ['roll-control-plane', 'cordon-control-plane', 'grant-migration-lease'],
    });
    expect(r.log).toEqual([
      // The manual change came last, so its plan undo comes first: exactly the reverse of the step.
      'plan-undo roll-control-plane manual',
      'undo roll-control-plane#0',
      'gate roll-control-plane daemonset-rolled-out b',
      'gate roll-control-plane load-balancers-kept',
      'undo cordon-control-plane#0',
      'gate cordon-control-plane daemonset-rolled-out a',
      'undo grant-migration-lease#0',
      'gate grant-migration-lease load-balancers-kept',
    ]);
    expect(result.journal.rollback?.completedAt).toBeDefined();
    expect(result.journal.steps.map((s) => s.state)).toEqual([
      'rolled-back',
      'rolled-back',
      'rolled-back',
      'pending',
    ]);
  });

  it('stops on a failed gate with the step still marked as being undone, and resumes it', async () => {
    const first = recorder({ failGate: 'cordon-control-plane' });
    const stopped = await runRollback(verifiedUpTo(2), first.actions);
    expect(stopped).toMatchObject({ type: 'gate-failed', step: 'cordon-control-plane' });
    expect(stopped.journal.rollback?.undoing).toBe('cordon-control-plane');
    const second = recorder();
    const done = await runRollback(stopped.journal, second.actions);
    expect(done.type).toBe('rolled-back');
    expect(second.log[0]).toBe('undo cordon-control-plane#0');
  });

  it('undoes a change that has a backup but no record (a crash right after the write)', async () => {
    let j = journalFor(p);
    j = beginApply(j, 'grant-migration-lease', [{ change: 0, backup: { type: 'none', reason: 't' } }], 0);
    const r = recorder();
    await runRollback(j, r.actions);
    expect(r.log[0]).toBe('undo grant-migration-lease#0');
  });

  it('reports conflicts without marking the step rolled back', async () => {
    const r = recorder();
    const result = await runRollback(verifiedUpTo(1), {
      ...r.actions,
      undoChange: async () => ({ type: 'conflict', conflicts: ['spec.x is "c" now'] }),
    });
    expect(result).toMatchObject({
      type: 'conflict',
      step: 'grant-migration-lease',
      conflicts: ['spec.x is "c" now'],
    });
    expect(result.journal.steps[0]!.state).toBe('verified');
  });
});
