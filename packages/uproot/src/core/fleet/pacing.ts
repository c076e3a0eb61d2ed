/**
 * How a fleet migration paces itself: at most `parallel` clusters migrate at once (in this process, or as
 * running Jobs), and once `maxFailures` migrations have failed no new one starts (those running finish).
 * What each cluster's run came to is a `ClusterOutcome`; the fleet's exit code follows from all of them.
 */
import { ExitCode, InputError } from '../../errors/index.js';

export interface Pacing {
  readonly parallel: number;
  /** No new migration starts once this many have failed. */
  readonly maxFailures: number;
}

export const DEFAULT_PACING: Pacing = { parallel: 4, maxFailures: 1 };
const MAX_PARALLEL = 100;

function wholeNumber(value: number | undefined, field: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new InputError('UP-FLEET-FLAGS', `${field} must be a whole number from 1 to ${max}, got ${value}`, {
      location: { field, value },
      hint: `e.g. ${field} ${fallback}`,
    });
  }
  return value;
}

/** Validates --parallel and --max-failures (defaults 4 and 1: a first failure stops new starts). */
export function pacingOf(flags: { readonly parallel?: number; readonly maxFailures?: number }): Pacing {
  return {
    parallel: wholeNumber(flags.parallel, '--parallel', DEFAULT_PACING.parallel, MAX_PARALLEL),
    maxFailures: wholeNumber(flags.maxFailures, '--max-failures', DEFAULT_PACING.maxFailures, 100_000),
  };
}

export interface PacingState {
  /** Clusters not started yet, in the order they should start. */
  readonly waiting: readonly string[];
  readonly running: number;
  readonly failed: number;
}

/** Which clusters start now, and whether starts are halted because too many failed. */
export function startsNow(state: PacingState, pacing: Pacing): { start: string[]; halted: boolean } {
  if (state.failed >= pacing.maxFailures) return { start: [], halted: true };
  const free = Math.max(0, pacing.parallel - state.running);
  return { start: state.waiting.slice(0, free), halted: false };
}

/** What one cluster's part in a fleet run came to. */
export type ClusterOutcome =
  | { readonly type: 'migrated' }
  | { readonly type: 'already-completed' }
  | { readonly type: 'nothing-to-do'; readonly reason: string }
  | { readonly type: 'stopped'; readonly after: string }
  | { readonly type: 'preflight-failed'; readonly failedChecks: readonly string[] }
  | { readonly type: 'unsupported'; readonly reason: string }
  /** It could not be reached before anything was changed (its kubeconfig Secret, its API server). */
  | { readonly type: 'unreachable'; readonly code: string; readonly reason: string }
  /** Another run holds its migration lock (a second fleet run, a person with `uproot migrate`). */
  | { readonly type: 'locked'; readonly reason: string }
  | { readonly type: 'failed'; readonly code: string; readonly reason: string; readonly step?: string }
  | { readonly type: 'waiting-for-person'; readonly step: string }
  | { readonly type: 'interrupted'; readonly step?: string }
  /** Still migrating in its Job after the pacer stopped watching (--as-jobs). */
  | { readonly type: 'running'; readonly job: string }
  /** Never started: too many failed first, or the run was interrupted. */
  | { readonly type: 'not-started'; readonly because: 'max-failures' | 'interrupted' };

/** A migration that started and failed: what --max-failures counts. */
export function countsAsFailure(outcome: ClusterOutcome): boolean {
  return outcome.type === 'failed';
}

/** A cluster that ends the run migrated (now or before). */
export function isDone(outcome: ClusterOutcome): boolean {
  return (
    outcome.type === 'migrated' || outcome.type === 'already-completed' || outcome.type === 'nothing-to-do'
  );
}

/** 0 when every cluster is done (or stopped where asked), 130 when interrupted, else 1. */
export function fleetExitCode(outcomes: readonly ClusterOutcome[]): ExitCode {
  if (
    outcomes.some(
      (o) => o.type === 'interrupted' || (o.type === 'not-started' && o.because === 'interrupted'),
    )
  )
    return ExitCode.aborted;
  return outcomes.every((o) => isDone(o) || o.type === 'stopped') ? ExitCode.ok : ExitCode.failed;
}

/** One line per outcome type, for tables and summaries. */
export function describeOutcome(outcome: ClusterOutcome): string {
  switch (outcome.type) {
    case 'migrated':
      return 'migrated';
    case 'already-completed':
      return 'already migrated';
    case 'nothing-to-do':
      return `nothing to do: ${outcome.reason}`;
    case 'stopped':
      return `stopped after ${outcome.after} (--until)`;
    case 'preflight-failed':
      return `skipped: preflight failed (${outcome.failedChecks.join(', ') || 'see preflight'})`;
    case 'unsupported':
      return `skipped: ${outcome.reason}`;
    case 'unreachable':
      return `unreachable: ${outcome.reason}`;
    case 'locked':
      return `skipped: ${outcome.reason}`;
    case 'failed':
      return `failed${outcome.step ? ` at ${outcome.step}` : ''}: ${outcome.code} ${outcome.reason}`;
    case 'waiting-for-person':
      return `waits for a person at ${outcome.step}`;
    case 'interrupted':
      return `interrupted${outcome.step ? ` during ${outcome.step}` : ''}`;
    case 'running':
      return `still running in Job ${outcome.job}`;
    case 'not-started':
      return outcome.because === 'max-failures'
        ? 'not started: --max-failures reached'
        : 'not started: interrupted';
  }
}
