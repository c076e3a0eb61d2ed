/**
 * What migrate and rollback do alike around the engine: refuse to change a cluster when nobody can confirm,
 * hold the migration lock for the whole run, and wire the engine from the adapters and the caller's
 * dependencies.
 */
import { resolve } from 'node:path';
import { ProcessRunner } from '../../adapters/process/run-command.js';
import type { Clock, Random } from '../../clock/index.js';
import type { MigrationPlan } from '../../core/model/plan-types.js';
import { InputError } from '../../errors/index.js';
import type { StepTransforms } from '../../engine/appliers/applier-types.js';
import type { EventSink } from '../../engine/events.js';
import { takeoverNote, type LocalProcesses } from '../../engine/lock/holder-process.js';
import type { OwnershipInference } from '../../core/ownership/index.js';
import type { CommandRunner } from '../../engine/ports.js';
import type { Connect } from './cluster-access.js';
import { wireExecution, type Execution } from './engine-wiring.js';
import { connectJournalSession, type JournalSession } from './journal-session.js';
import { newRunId, openLockedJournal, type LockedJournal } from './locked-journal.js';
import { executionSettings, type ExecutionFlags, type RunHost } from './run-settings.js';
import { validateTargets, type TargetFlags } from '../targets.js';

/** What a caller may inject into a journaled run; the defaults are the real clock, clusters and adapters. */
export interface RunDeps {
  readonly clock?: Clock;
  readonly random?: Random;
  /** Connects to the clusters (default: the kubeconfig). */
  readonly connect?: Connect;
  /** The distribution's pure step transformations for a plan (default: the planners'). */
  readonly transformsFor?: (plan: MigrationPlan) => StepTransforms;
  readonly runner?: CommandRunner;
  readonly inference?: OwnershipInference;
  readonly onEvent?: EventSink;
  readonly runId?: string;
  /** This machine's processes, for taking over a lock whose holder was killed (default: none, wait). */
  readonly processes?: LocalProcesses;
}

/** A run that changes the cluster needs --yes, or a terminal to ask at; a dry run needs neither. */
export function requireConfirmation(
  flags: { readonly dryRun?: boolean; readonly yes?: boolean },
  host: RunHost,
  code: string,
  refusal: { readonly message: string; readonly hint: string },
): void {
  if (!flags.dryRun && !flags.yes && !(host.interactive && host.confirm)) {
    throw new InputError(code, refusal.message, { location: { field: '--yes' }, hint: refusal.hint });
  }
}

/**
 * The start of a run that changes the cluster: the targets checked, the confirmation required (refusing with
 * `code` and `refusal`), then the journal's session.
 */
export function openConfirmedSession(
  options: TargetFlags & { readonly dryRun?: boolean; readonly yes?: boolean },
  host: RunHost,
  deps: Parameters<typeof connectJournalSession>[2],
  code: string,
  refusal: { readonly message: string; readonly hint: string },
): JournalSession {
  validateTargets(options);
  requireConfirmation(options, host, code, refusal);
  return connectJournalSession(options, host, deps);
}

/** Runs `body` holding the migration lock (released however it ends), with the journal store behind it. */
export async function withLockedJournal<T>(
  session: JournalSession,
  host: RunHost,
  run: {
    readonly stateDir: string | undefined;
    readonly purpose: string;
    readonly runId: string | undefined;
    readonly processes?: LocalProcesses;
    /** Told when the lock was taken over from a previous holder. */
    readonly notify?: EventSink;
  },
  body: (locked: LockedJournal, runId: string) => Promise<T>,
): Promise<T> {
  const runId = run.runId ?? newRunId(session.random);
  const locked = await openLockedJournal({
    objects: session.journalObjects,
    location: session.location,
    runId,
    clock: session.clock,
    stateDir: resolve(host.cwd, run.stateDir ?? '.uproot'),
    purpose: run.purpose,
    ...(host.signal ? { signal: host.signal } : {}),
    ...(run.processes ? { processes: run.processes } : {}),
  });
  if (locked.takeover) run.notify?.({ type: 'note', message: takeoverNote(locked.takeover) });
  try {
    return await body(locked, runId);
  } finally {
    await locked.release();
  }
}

/** The appliers and gate runner for `plan`, from the flags and what the caller injected. */
export function executionFor(
  plan: MigrationPlan,
  session: JournalSession,
  run: {
    readonly flags: ExecutionFlags;
    readonly host: RunHost;
    readonly transforms: StepTransforms;
    readonly deps: RunDeps;
    readonly signal: AbortSignal;
    readonly force?: boolean;
  },
): Execution {
  const { clock, random } = session;
  const { deps } = run;
  const settings = executionSettings(
    run.flags,
    run.host,
    {
      clock,
      random,
      runner: deps.runner ?? new ProcessRunner(clock),
      transforms: run.transforms,
      ...(deps.inference ? { inference: deps.inference } : {}),
      ...(deps.onEvent ? { notify: deps.onEvent } : {}),
    },
    { signal: run.signal, force: run.force ?? false },
  );
  return wireExecution(plan, session.clusters, settings);
}
