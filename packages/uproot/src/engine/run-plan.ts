/**
 * The executor: walks the plan one step at a time, asking `nextAction` what to do, journaling intent before
 * every change and the outcome after it, and proving each step with its gates before the next starts. All I/O
 * is injected (`EngineActions`), so tests drive it with recording callbacks and simulated crashes.
 */
import type { Change, MigrationPlan, PlanStep, StepId } from '../core/model/plan-types.js';
import { InternalError, UprootError } from '../errors/index.js';
import type { EventSink } from './events.js';
import { checkGate, type GateCheckActions } from './gate-check.js';
import type { BackupEntry, ChangeRecord, Journal } from './journal/journal-schema.js';
import {
  beginApply,
  beginVerify,
  failStep,
  finishApply,
  finishVerify,
  recordChange,
  recordGate,
  stepRecordOf,
} from './journal/journal-transitions.js';
import { nextAction } from './next-action.js';
import type { GateFailed, Interrupted, StepErrored, WaitingForPerson } from './run-outcomes.js';
import { carriesRedactedSecret } from './sanitize.js';

export type { GateRun } from './gate-check.js';

export type ChangeOutcome =
  | { readonly type: 'done'; readonly record: Omit<ChangeRecord, 'change' | 'at'> }
  /** A person has to do something first (a `manual` change not yet confirmed). */
  | { readonly type: 'needs-person'; readonly instructions: string };

export interface ApplyChangeInput {
  readonly step: PlanStep;
  readonly change: Change;
  readonly index: number;
  readonly backup: BackupEntry['backup'] | undefined;
  readonly journal: Journal;
}

export interface EngineActions extends GateCheckActions {
  /** Reads what the given changes will touch, before any of them is made. */
  captureBackups(step: PlanStep, changes: readonly number[]): Promise<BackupEntry[]>;
  applyChange(input: ApplyChangeInput): Promise<ChangeOutcome>;
  /** Persists the journal (cluster first, then the local mirror); returns what was saved. */
  saveJournal(journal: Journal): Promise<Journal>;
  readonly notify?: EventSink;
}

export interface RunPlanOptions {
  readonly until?: StepId;
  readonly signal?: AbortSignal;
}

export type RunResult =
  | { readonly type: 'completed'; readonly journal: Journal }
  | { readonly type: 'stopped'; readonly after: StepId; readonly journal: Journal }
  | GateFailed
  | StepErrored<'apply-failed'>
  | WaitingForPerson
  | Interrupted
  | { readonly type: 'rolled-back'; readonly journal: Journal };

type StepOutcome = { readonly type: 'ok'; readonly journal: Journal } | RunResult;

/** A journal save that failed: never turned into a step failure (that could not be saved either). */
class SaveFailed {
  constructor(readonly error: unknown) {}
}

/** Wraps saveJournal so its failures pass through the step's error handling untouched. */
function guardSaves(actions: EngineActions): EngineActions {
  return {
    ...actions,
    saveJournal: async (journal) => {
      try {
        return await actions.saveJournal(journal);
      } catch (error) {
        throw new SaveFailed(error);
      }
    },
  };
}

export async function runPlan(
  plan: MigrationPlan,
  initial: Journal,
  unguarded: EngineActions,
  options: RunPlanOptions = {},
): Promise<RunResult> {
  const actions = guardSaves(unguarded);
  try {
    return await runSteps(plan, initial, actions, options);
  } catch (error) {
    throw error instanceof SaveFailed ? error.error : error;
  }
}

async function runSteps(
  plan: MigrationPlan,
  initial: Journal,
  actions: EngineActions,
  options: RunPlanOptions,
): Promise<RunResult> {
  let journal = initial;
  for (;;) {
    const action = nextAction(journal, options.until ? { until: options.until } : {});
    if (action.type === 'done') return { type: 'completed', journal };
    if (action.type === 'stop') return { type: 'stopped', after: action.after, journal };
    if (action.type === 'rolled-back') return { type: 'rolled-back', journal };
    if (options.signal?.aborted) return { type: 'interrupted', step: action.step, journal };
    const step = stepOf(plan, action.step);
    const outcome =
      action.type === 'verify'
        ? await verifyStep(step, journal, actions, options)
        : await applyStep(step, journal, actions, options, action.type === 'continue-apply');
    if (outcome.type !== 'ok') return outcome;
    journal = outcome.journal;
  }
}

export function stepOf(plan: MigrationPlan, id: StepId): PlanStep {
  const step = plan.steps.find((s) => s.id === id);
  if (!step)
    throw new InternalError(
      `step ${id} is in the journal but not in its plan; this should not happen, please report it`,
    );
  return step;
}

async function applyStep(
  step: PlanStep,
  initial: Journal,
  actions: EngineActions,
  options: RunPlanOptions,
  resumed: boolean,
): Promise<StepOutcome> {
  const { clock } = actions;
  let journal = initial;
  actions.notify?.({ type: 'step-started', step: step.id, title: step.title, resumed });
  try {
    const before = stepRecordOf(journal, step.id);
    const done = new Set(before.state === 'pending' ? [] : before.changes.map((c) => c.change));
    const backedUp = new Set(before.state === 'pending' ? [] : before.backups.map((b) => b.change));
    const toCapture = step.changes.map((_, i) => i).filter((i) => !done.has(i) && !backedUp.has(i));
    const backups = toCapture.length > 0 ? await actions.captureBackups(step, toCapture) : [];
    // Intent first: once this is saved, a crash anywhere below resumes this step with these backups.
    journal = await actions.saveJournal(beginApply(journal, step.id, backups, clock.now()));
    for (const [index, change] of step.changes.entries()) {
      if (done.has(index)) continue;
      if (options.signal?.aborted) return { type: 'interrupted', step: step.id, journal };
      if (carriesRedactedSecret(change)) throw redactedSecret(step.id, index);
      const record = stepRecordOf(journal, step.id);
      const backup =
        record.state === 'pending' ? undefined : record.backups.find((b) => b.change === index)?.backup;
      const outcome = await actions.applyChange({ step, change, index, backup, journal });
      if (outcome.type === 'needs-person') {
        actions.notify?.({ type: 'manual-action', step: step.id, instructions: outcome.instructions });
        return { type: 'waiting-for-person', step: step.id, instructions: outcome.instructions, journal };
      }
      const at = new Date(clock.now()).toISOString();
      journal = await actions.saveJournal(
        recordChange(journal, step.id, { ...outcome.record, change: index, at }, clock.now()),
      );
      actions.notify?.({
        type: 'change-done',
        step: step.id,
        index,
        description: change.description,
        outcome: outcome.record.outcome,
        ...(outcome.record.detail ? { detail: outcome.record.detail } : {}),
      });
    }
    journal = await actions.saveJournal(finishApply(journal, step.id, clock.now()));
  } catch (error) {
    if (error instanceof SaveFailed) throw error;
    if (isAbort(error, options.signal)) return { type: 'interrupted', step: step.id, journal };
    const failure = asUprootError(error);
    if (stepRecordOf(journal, step.id).state === 'pending') {
      // Nothing was journaled (the backups could not be read): nothing changed, nothing to record.
      return { type: 'apply-failed', step: step.id, error: failure, journal };
    }
    journal = await actions.saveJournal(
      failStep(
        journal,
        step.id,
        {
          phase: 'apply',
          code: failure.code,
          reason: failure.message,
          fix: failure.hint ?? 'see the error above',
        },
        clock.now(),
      ),
    );
    actions.notify?.({
      type: 'step-failed',
      step: step.id,
      reason: failure.message,
      fix: failure.hint ?? '',
    });
    return { type: 'apply-failed', step: step.id, error: failure, journal };
  }
  return verifyStep(step, journal, actions, options);
}

async function verifyStep(
  step: PlanStep,
  initial: Journal,
  actions: EngineActions,
  options: RunPlanOptions,
): Promise<StepOutcome> {
  const { clock } = actions;
  let journal = await actions.saveJournal(beginVerify(initial, step.id, clock.now()));
  for (const gate of step.gates) {
    const checked = await checkGate({ step, gate, journal }, actions, {
      signal: options.signal,
      isAbort: (error) => !(error instanceof SaveFailed) && isAbort(error, options.signal),
      record: (j, record) => actions.saveJournal(recordGate(j, step.id, record, clock.now())),
    });
    if (checked.type === 'interrupted') return { type: 'interrupted', step: step.id, journal };
    journal = checked.journal;
    if (checked.result.type !== 'passed') {
      const { result } = checked;
      const reason = result.type === 'failed' ? result.reason : `timed out: ${result.last}`;
      journal = await actions.saveJournal(
        failStep(
          journal,
          step.id,
          { phase: 'verify', code: `UP-GATE-${gate.type.toUpperCase()}`, reason, fix: result.fix },
          clock.now(),
        ),
      );
      actions.notify?.({ type: 'step-failed', step: step.id, reason, fix: result.fix });
      return { type: 'gate-failed', step: step.id, gate, result, journal };
    }
  }
  journal = await actions.saveJournal(finishVerify(journal, step.id, clock.now()));
  actions.notify?.({ type: 'step-verified', step: step.id });
  return { type: 'ok', journal };
}

export function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted && (error === signal.reason || !UprootError.is(error))) return true;
  return error instanceof DOMException && error.name === 'AbortError';
}

export function asUprootError(error: unknown): UprootError {
  if (UprootError.is(error)) return error;
  return new InternalError(`unexpected error: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

function redactedSecret(step: StepId, index: number): UprootError {
  return new UprootError(
    'UP-ENGINE-SECRET-NOT-JOURNALED',
    `change ${index + 1} of step ${step} creates a Secret, whose content is never kept in the journal, so it cannot be resumed from there`,
    {
      hint: 'create the Secret yourself (kubectl apply), then run `uproot migrate --resume` again; or run `uproot rollback`',
    },
  );
}
