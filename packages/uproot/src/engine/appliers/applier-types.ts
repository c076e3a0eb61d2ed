/**
 * How a change reaches the cluster. An applier knows one family of changes: it reads the backup before,
 * applies the change idempotently (re-applying a done change writes nothing), and undoes it from its record.
 * The engine (run-plan.ts, run-rollback.ts) decides when; appliers decide how, through the adapters.
 */
import type { Change, PlanStep, StepId } from '../../core/model/plan-types.js';
import type { Backup, ChangeRecord, Journal } from '../journal/journal-schema.js';
import type { JsonRecord } from '../object-diff/json.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { ChangeOutcome } from '../run-plan.js';

export interface CaptureContext {
  readonly step: PlanStep;
  readonly index: number;
}

export interface ApplyContext extends CaptureContext {
  readonly journal: Journal;
}

export interface UndoContext extends ApplyContext {
  /** What applying recorded; undefined when the change may have landed unrecorded (a crash). */
  readonly record: ChangeRecord | undefined;
  /** Restore the value from before the step even where someone edited the field since. */
  readonly force: boolean;
}

export interface ChangeApplier<C extends Change> {
  capture(change: C, ctx: CaptureContext): Promise<Backup>;
  apply(change: C, backup: Backup | undefined, ctx: ApplyContext): Promise<ChangeOutcome>;
  undo(change: C, backup: Backup | undefined, ctx: UndoContext): Promise<UndoOutcome>;
}

/**
 * A distribution's pure re-application of a step to a freshly read cluster definition (the Rancher Cluster
 * object, or an RKE cluster.yml as plain data). Returns undefined when it has nothing for this change; the
 * engine then re-applies the change's recorded JSON Patch idempotently.
 */
export type StepTransform = (stepId: StepId, current: JsonRecord, change: Change) => JsonRecord | undefined;

/**
 * The same step transformation on a file's text, keeping comments and untouched bytes (RKE cluster.yml).
 * Returns undefined when it has nothing for this change.
 */
export type StepTextTransform = (stepId: StepId, text: string, change: Change) => string | undefined;

/** What a distribution contributes to the engine: its pure transformations. */
export interface StepTransforms {
  readonly object?: StepTransform;
  readonly text?: StepTextTransform;
}

/** Asks a person whether a manual action is done; undefined when nobody is at a terminal. */
export type Confirm = ((question: string) => Promise<boolean>) | undefined;
