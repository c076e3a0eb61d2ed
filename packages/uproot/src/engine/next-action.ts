/**
 * What the engine does next, decided purely from the journal. This is the whole resume logic: whatever point
 * a run stopped at (a crash after any journal write, Ctrl-C, a failed gate), the next run asks this function
 * and continues without redoing a completed change or skipping an unverified one.
 */
import type { StepId } from '../core/model/plan-types.js';
import { assertNever } from '../errors/index.js';
import type { Journal, StepRecord } from './journal/journal-schema.js';

export type NextAction =
  /** A step not started yet: capture backups, journal the intent, apply every change. */
  | { type: 'apply'; step: StepId }
  /**
   * A step whose changes were started but not all recorded as done (a crash or an error mid-step): apply the
   * changes not yet recorded, with the backups captured the first time. Transformations are idempotent, so a
   * change that did land before the crash is found in place and not written again.
   */
  | { type: 'continue-apply'; step: StepId }
  /** All changes are done; the gates have not (all) passed yet. */
  | { type: 'verify'; step: StepId }
  /** Every step up to --until is verified. */
  | { type: 'stop'; after: StepId }
  | { type: 'done' }
  /** The journal belongs to a rolled back (or rolling back) migration: migrate must not continue it. */
  | { type: 'rolled-back' };

export interface NextActionOptions {
  /** Stop once this step is verified. */
  readonly until?: StepId;
}

export function nextAction(journal: Journal, options: NextActionOptions = {}): NextAction {
  if (journal.rollback) return { type: 'rolled-back' };
  for (const record of journal.steps) {
    const action = actionFor(record);
    if (action) return action;
    if (options.until === record.id) return { type: 'stop', after: record.id };
  }
  return { type: 'done' };
}

function actionFor(record: StepRecord): NextAction | undefined {
  switch (record.state) {
    case 'verified':
      return undefined;
    case 'pending':
      return { type: 'apply', step: record.id };
    case 'applying':
      return { type: 'continue-apply', step: record.id };
    case 'applied':
    case 'verifying':
      return { type: 'verify', step: record.id };
    case 'failed':
      return record.phase === 'apply'
        ? { type: 'continue-apply', step: record.id }
        : { type: 'verify', step: record.id };
    case 'rolled-back':
      return { type: 'rolled-back' };
    default:
      return assertNever(record, 'step state');
  }
}
