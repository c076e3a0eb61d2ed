/**
 * One gate of a step, checked the same way by the executor and by rollback: not started once the run is
 * aborted, timed for the journal, its lease observations added to the journal's timeline, then reported.
 */
import type { Clock } from '../clock/index.js';
import type { Gate, PlanStep } from '../core/model/plan-types.js';
import type { EventSink } from './events.js';
import type { GateRecord, GateResult, Journal, LeaseRecord } from './journal/journal-schema.js';
import { appendLeaseRecords } from './journal/journal-transitions.js';

export interface GateRun {
  readonly result: GateResult;
  /** Lease holder observations made while checking, for the journal's timeline. */
  readonly observations?: readonly LeaseRecord[];
}

/** What the engine reads from a lease poller (engine/gates/lease-poller.ts): the looks since the last drain. */
export interface LeaseLooks {
  drain(): LeaseRecord[];
}

export interface GateCheckActions {
  readonly clock: Clock;
  runGate(input: {
    readonly step: PlanStep;
    readonly gate: Gate;
    readonly journal: Journal;
  }): Promise<GateRun>;
  readonly notify?: EventSink;
  /**
   * The lease looks made between gates (engine/gates/lease-poller.ts), added to the journal's timeline
   * before each gate, so a gate judges every renewal seen so far.
   */
  readonly leaseLooks?: LeaseLooks;
}

export type GateCheck =
  | { readonly type: 'interrupted' }
  | { readonly type: 'checked'; readonly result: GateResult; readonly journal: Journal };

export async function checkGate(
  input: { readonly step: PlanStep; readonly gate: Gate; readonly journal: Journal },
  actions: GateCheckActions,
  how: {
    readonly signal: AbortSignal | undefined;
    /** Whether an error the gate threw means the run was aborted. */
    readonly isAbort: (error: unknown) => boolean;
    /** Keeps the gate's record: the executor journals it at once, rollback with the step it undid. */
    readonly record: (journal: Journal, record: GateRecord) => Journal | Promise<Journal>;
  },
): Promise<GateCheck> {
  const { step, gate } = input;
  const { clock } = actions;
  if (how.signal?.aborted) return { type: 'interrupted' };
  const startedAt = new Date(clock.now()).toISOString();
  const polled = actions.leaseLooks?.drain() ?? [];
  let journal = polled.length > 0 ? appendLeaseRecords(input.journal, polled, clock.now()) : input.journal;
  let run: GateRun;
  try {
    run = await actions.runGate({ step, gate, journal });
  } catch (error) {
    if (how.isAbort(error)) return { type: 'interrupted' };
    throw error;
  }
  const finishedAt = new Date(clock.now()).toISOString();
  if (run.observations?.length) journal = appendLeaseRecords(journal, run.observations, clock.now());
  journal = await how.record(journal, { gate, startedAt, finishedAt, result: run.result });
  actions.notify?.({ type: 'gate-finished', step: step.id, gate, result: run.result });
  return { type: 'checked', result: run.result, journal };
}
