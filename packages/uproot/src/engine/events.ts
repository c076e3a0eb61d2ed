/**
 * What the engine reports while it works. The toolkit passes these to its caller (the CLI prints them; tests
 * record them). Stable `type`s; data only, never secrets.
 */
import type { Gate, StepId } from '../core/model/plan-types.js';
import type { GateResult } from './journal/journal-schema.js';

export type EngineEvent =
  | {
      readonly type: 'step-started';
      readonly step: StepId;
      readonly title: string;
      readonly resumed: boolean;
    }
  | {
      readonly type: 'change-done';
      readonly step: StepId;
      readonly index: number;
      readonly description: string;
      readonly outcome: 'changed' | 'unchanged' | 'confirmed';
      readonly detail?: string;
    }
  | { readonly type: 'gate-started'; readonly step: StepId; readonly gate: Gate; readonly timeoutMs?: number }
  | {
      readonly type: 'gate-waiting';
      readonly step: StepId;
      readonly gate: Gate;
      readonly reason: string;
      /** How long the gate has waited so far (run clock), and its deadline if it has one. */
      readonly elapsedMs?: number;
      readonly timeoutMs?: number;
    }
  /**
   * The gate looked again and still waits for the same reason: a pulse for displays (a live line, a periodic
   * "still waiting"); after every look, so at least every backoff maximum (15 s, ±10%).
   */
  | {
      readonly type: 'gate-pulse';
      readonly step: StepId;
      readonly gate: Gate;
      readonly reason: string;
      readonly elapsedMs: number;
      readonly timeoutMs?: number;
    }
  | {
      readonly type: 'gate-finished';
      readonly step: StepId;
      readonly gate: Gate;
      readonly result: GateResult;
    }
  | { readonly type: 'step-verified'; readonly step: StepId }
  | { readonly type: 'step-failed'; readonly step: StepId; readonly reason: string; readonly fix: string }
  | { readonly type: 'manual-action'; readonly step: StepId; readonly instructions: string }
  | { readonly type: 'undo-started'; readonly step: StepId; readonly title: string }
  | {
      readonly type: 'undo-done';
      readonly step: StepId;
      readonly index: number;
      readonly description: string;
      readonly detail: string;
    }
  | { readonly type: 'step-rolled-back'; readonly step: StepId }
  | { readonly type: 'note'; readonly message: string };

export type EventSink = (event: EngineEvent) => void;
