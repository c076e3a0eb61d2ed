/**
 * Rollback: undoes the steps that changed something, last first, each behind the gates that held before it.
 * Progress is journaled (`rollback.undoing` before the first undo write of a step, the step marked
 * rolled-back after its gates), and every undo is idempotent, so a crashed rollback is resumed by running
 * `uproot rollback` again.
 */
import type { Change, PlanStep, StepId } from '../../core/model/plan-types.js';
import type { EventSink } from '../events.js';
import { checkGate, type GateCheckActions } from '../gate-check.js';
import type { Backup, ChangeRecord, GateRecord, Journal } from '../journal/journal-schema.js';
import {
  completeRollback,
  markRolledBack,
  setUndoing,
  startRollback,
  stepRecordOf,
} from '../journal/journal-transitions.js';
import type { GateFailed, Interrupted, StepErrored, WaitingForPerson } from '../run-outcomes.js';
import { asUprootError, isAbort, type ChangeOutcome } from '../run-plan.js';
import { gatesAfterUndo, stepsToUndo } from './rollback-order.js';
import { RollbackAcrossUpgradeError, upgradeBoundary } from './upgrade-boundary.js';

export type UndoOutcome =
  | { readonly type: 'undone'; readonly detail: string }
  | { readonly type: 'nothing-to-undo'; readonly detail: string }
  | { readonly type: 'conflict'; readonly conflicts: readonly string[] }
  | { readonly type: 'needs-person'; readonly instructions: string };

export interface UndoChangeInput {
  readonly step: PlanStep;
  readonly change: Change;
  readonly index: number;
  /** What applying the change recorded; undefined when it may have landed without being recorded (crash). */
  readonly record: ChangeRecord | undefined;
  readonly backup: Backup | undefined;
  readonly journal: Journal;
}

export interface RollbackActions extends GateCheckActions {
  /** Undoes a change the engine has a record or backup of (objects, cluster files, node scheduling). */
  undoChange(input: UndoChangeInput): Promise<UndoOutcome>;
  /** Applies one of the plan's own undo changes (node files, manual instructions). */
  applyPlanUndo(input: {
    readonly step: PlanStep;
    readonly change: Change;
    readonly index: number;
    readonly journal: Journal;
  }): Promise<ChangeOutcome>;
  saveJournal(journal: Journal): Promise<Journal>;
  readonly notify?: EventSink;
}

/** Changes the engine undoes from its own records; the others are undone with the plan's undo changes. */
export function undoneFromRecords(change: Change): boolean {
  switch (change.type) {
    case 'edit-cluster-definition':
    case 'patch-object':
    case 'apply-object':
    case 'cordon-nodes':
    case 'uncordon-nodes':
      return true;
    case 'write-file':
    case 'delete-file':
    case 'manual':
      return false;
  }
}

export type RollbackResult =
  | { readonly type: 'rolled-back'; readonly journal: Journal; readonly steps: readonly StepId[] }
  | { readonly type: 'nothing-to-undo'; readonly journal: Journal }
  | GateFailed
  | {
      readonly type: 'conflict';
      readonly step: StepId;
      readonly conflicts: readonly string[];
      readonly journal: Journal;
    }
  | StepErrored<'undo-failed'>
  | WaitingForPerson
  | Interrupted
  /** The steps after the last started upgrade were undone; the rollback stops before that upgrade. */
  | {
      readonly type: 'stopped-at-upgrade';
      readonly journal: Journal;
      readonly steps: readonly StepId[];
      readonly step: StepId;
      readonly error: RollbackAcrossUpgradeError;
    };

/**
 * Undoes what can be undone. Throws RollbackAcrossUpgradeError, before writing anything, when a started step
 * that changed the Kubernetes version leaves nothing after it to undo.
 */
export async function runRollback(
  initial: Journal,
  actions: RollbackActions,
  options: { readonly signal?: AbortSignal } = {},
): Promise<RollbackResult> {
  const { clock } = actions;
  const steps = stepsToUndo(initial);
  const boundary = upgradeBoundary(initial);
  if (boundary && steps.length === 0 && !initial.rollback) throw new RollbackAcrossUpgradeError(boundary);
  if (steps.length === 0 && !initial.rollback) return { type: 'nothing-to-undo', journal: initial };
  let journal = await actions.saveJournal(startRollback(initial, clock.now()));
  const undone: StepId[] = [];
  for (const step of steps) {
    if (options.signal?.aborted) return { type: 'interrupted', step: step.id, journal };
    actions.notify?.({ type: 'undo-started', step: step.id, title: step.title });
    journal = await actions.saveJournal(setUndoing(journal, step.id, clock.now()));
    try {
      const outcome = await undoStep(step, journal, actions);
      if (outcome) return { ...outcome, journal } as RollbackResult;
    } catch (error) {
      if (isAbort(error, options.signal)) return { type: 'interrupted', step: step.id, journal };
      return { type: 'undo-failed', step: step.id, error: asUprootError(error), journal };
    }
    const gates: GateRecord[] = [];
    for (const gate of gatesAfterUndo(journal.plan, step)) {
      const checked = await checkGate({ step, gate, journal }, actions, {
        signal: options.signal,
        isAbort: (error) => isAbort(error, options.signal),
        record: (j, record) => {
          gates.push(record);
          return j;
        },
      });
      if (checked.type === 'interrupted') return { type: 'interrupted', step: step.id, journal };
      journal = checked.journal;
      if (checked.result.type !== 'passed') {
        journal = await actions.saveJournal(journal);
        return { type: 'gate-failed', step: step.id, gate, result: checked.result, journal };
      }
    }
    journal = await actions.saveJournal(markRolledBack(journal, step.id, gates, clock.now()));
    actions.notify?.({ type: 'step-rolled-back', step: step.id });
    undone.push(step.id);
  }
  journal = await actions.saveJournal(completeRollback(journal, clock.now(), boundary?.upgrade));
  if (boundary) {
    const error = new RollbackAcrossUpgradeError(boundary, undone);
    return { type: 'stopped-at-upgrade', journal, steps: undone, step: boundary.upgrade, error };
  }
  return { type: 'rolled-back', journal, steps: undone };
}

type StepProblem =
  | { readonly type: 'conflict'; readonly step: StepId; readonly conflicts: readonly string[] }
  | { readonly type: 'waiting-for-person'; readonly step: StepId; readonly instructions: string };

async function undoStep(
  step: PlanStep,
  journal: Journal,
  actions: RollbackActions,
): Promise<StepProblem | undefined> {
  const record = stepRecordOf(journal, step.id);
  if (record.state === 'pending') return undefined;
  const conflicts: string[] = [];
  let planUndone = false;
  // Exactly the reverse of the step: the plan's own undo (node files, manual actions) runs where the last
  // change it stands for was, so e.g. a CCM static pod goes before the RBAC it ran with.
  for (let index = step.changes.length - 1; index >= 0; index--) {
    const change = step.changes[index]!;
    const changeRecord = record.changes.find((c) => c.change === index);
    const backup = record.backups.find((b) => b.change === index)?.backup;
    if (!changeRecord && !backup) continue; // never started
    if (!undoneFromRecords(change)) {
      if (!planUndone) {
        planUndone = true;
        const problem = await applyPlanUndo(step, journal, actions);
        if (problem) return problem;
      }
      continue;
    }
    const outcome = await actions.undoChange({ step, change, index, record: changeRecord, backup, journal });
    if (outcome.type === 'conflict') conflicts.push(...outcome.conflicts);
    else if (outcome.type === 'needs-person') {
      return { type: 'waiting-for-person', step: step.id, instructions: outcome.instructions };
    } else {
      actions.notify?.({
        type: 'undo-done',
        step: step.id,
        index,
        description: change.description,
        detail: outcome.detail,
      });
    }
  }
  if (conflicts.length > 0) return { type: 'conflict', step: step.id, conflicts };
  return undefined;
}

async function applyPlanUndo(
  step: PlanStep,
  journal: Journal,
  actions: RollbackActions,
): Promise<StepProblem | undefined> {
  for (const [index, change] of step.undo.changes.entries()) {
    // Object and cluster-file edits are inverted from the records; only the rest comes from the plan.
    if (undoneFromRecords(change)) continue;
    const outcome = await actions.applyPlanUndo({ step, change, index, journal });
    if (outcome.type === 'needs-person') {
      return { type: 'waiting-for-person', step: step.id, instructions: outcome.instructions };
    }
    actions.notify?.({
      type: 'undo-done',
      step: step.id,
      index,
      description: change.description,
      detail: outcome.record.detail ?? outcome.record.outcome,
    });
  }
  return undefined;
}
