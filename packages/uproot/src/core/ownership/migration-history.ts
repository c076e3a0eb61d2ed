/**
 * The migration's record as the ownership analysis reads it: the plan, where each step stands and the
 * rollback. The engine's journal (src/engine/journal/journal-schema.ts) is one; these types name only the
 * fields read here, so the core needs nothing of the engine.
 */
import type { GateType, MigrationPlan, StepId } from '../model/plan-types.js';

/** A gate's outcome as the journal records it. */
export interface GateOutcome {
  readonly gate: { readonly type: GateType };
  readonly finishedAt: string;
  readonly result: { readonly type: string };
}

/** A step's journal record, reduced to its state and times. */
export type StepHistory =
  | { readonly id: StepId; readonly state: 'pending' }
  | { readonly id: StepId; readonly state: 'applying' | 'applied'; readonly startedAt: string }
  | {
      readonly id: StepId;
      readonly state: 'verifying';
      readonly startedAt: string;
      readonly gates: readonly GateOutcome[];
    }
  | {
      readonly id: StepId;
      readonly state: 'verified';
      readonly startedAt: string;
      readonly verifiedAt: string;
      readonly gates: readonly GateOutcome[];
    }
  | {
      readonly id: StepId;
      readonly state: 'failed';
      readonly startedAt: string;
      readonly failedAt: string;
      readonly gates: readonly GateOutcome[];
    }
  | {
      readonly id: StepId;
      readonly state: 'rolled-back';
      readonly startedAt: string;
      readonly rolledBackAt: string;
      readonly gates: readonly GateOutcome[];
    };

export interface RollbackHistory {
  readonly startedAt: string;
  /** The step being undone. */
  readonly undoing?: StepId;
  readonly completedAt?: string;
}

/** The journal's record of the migration so far: the plan and where each step stands. */
export interface MigrationHistory {
  readonly plan: MigrationPlan;
  readonly steps: readonly StepHistory[];
  readonly rollback?: RollbackHistory;
}
