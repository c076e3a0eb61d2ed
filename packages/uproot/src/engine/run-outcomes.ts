/** Outcomes the executor and rollback report alike, and the exit code each means. */
import type { Gate, StepId } from '../core/model/plan-types.js';
import { ExitCode, type UprootError } from '../errors/index.js';
import type { GateResult, Journal } from './journal/journal-schema.js';

export interface GateFailed {
  readonly type: 'gate-failed';
  readonly step: StepId;
  readonly gate: Gate;
  readonly result: Exclude<GateResult, { type: 'passed' }>;
  readonly journal: Journal;
}

/** The step threw while changing (`apply-failed`) or undoing (`undo-failed`) something. */
export interface StepErrored<T extends 'apply-failed' | 'undo-failed'> {
  readonly type: T;
  readonly step: StepId;
  readonly error: UprootError;
  readonly journal: Journal;
}

export interface WaitingForPerson {
  readonly type: 'waiting-for-person';
  readonly step: StepId;
  readonly instructions: string;
  readonly journal: Journal;
}

export interface Interrupted {
  readonly type: 'interrupted';
  readonly step?: StepId;
  readonly journal: Journal;
}

/** The exit code of an outcome both runs share: a person or a gate stopped it, it threw, or it was aborted. */
export function sharedOutcomeExitCode(
  outcome: GateFailed | WaitingForPerson | StepErrored<'apply-failed' | 'undo-failed'> | Interrupted,
): ExitCode {
  switch (outcome.type) {
    case 'gate-failed':
    case 'waiting-for-person':
      return ExitCode.failed;
    case 'apply-failed':
    case 'undo-failed':
      return outcome.error.exitCode;
    case 'interrupted':
      return ExitCode.aborted;
  }
}
