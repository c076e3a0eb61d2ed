/**
 * `uproot rollback` as a library call: undo the journaled steps, last first, from the engine's backups and
 * records, each behind the gates that held before it, back to the in-tree state (seed 003: with leader
 * migration on, kube-controller-manager regains the migration lease). Idempotent: a crashed or stopped
 * rollback is continued by running it again.
 */
import { MachineProcesses } from '../adapters/process/local-processes.js';
import { requireRancherCluster } from './session/journal-session.js';
import type { PlanStep, StepId } from '../core/model/plan-types.js';
import { ExitCode, InputError } from '../errors/index.js';
import { ConfigMapJournalStore } from '../adapters/kube/journal-store.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import { addRun, journalPhase } from '../engine/journal/journal-transitions.js';
import { stepsToUndo } from '../engine/rollback/rollback-order.js';
import { RollbackAcrossUpgradeError, upgradeBoundary } from '../engine/rollback/upgrade-boundary.js';
import { runRollback, type RollbackResult } from '../engine/rollback/run-rollback.js';
import { sharedOutcomeExitCode } from '../engine/run-outcomes.js';
import { executionFor, openConfirmedSession, withLockedJournal, type RunDeps } from './session/locked-run.js';
import type { ExecutionFlags, RunHost } from './session/run-settings.js';
import type { TargetFlags } from './targets.js';
import { plannerTransforms } from './migrate-sources.js';

export interface RollbackOptions extends TargetFlags, ExecutionFlags {
  readonly yes?: boolean;
  /** Show what would be undone; change nothing. */
  readonly dryRun?: boolean;
  /** Restore the values from before the migration even where someone edited a field since. */
  readonly force?: boolean;
  readonly stateDir?: string;
}

export interface RollbackDeps extends RunDeps {
  /** Called with the steps to undo (last first) before confirmation. */
  readonly onSteps?: (steps: readonly PlanStep[], journal: Journal) => void;
}

export type RollbackOutcome =
  | {
      readonly type: 'dry-run';
      readonly steps: readonly PlanStep[];
      readonly journal: Journal;
      /** A started upgrade the rollback would stop before (Kubernetes does not downgrade). */
      readonly stopsBefore?: StepId;
    }
  | { readonly type: 'already-rolled-back'; readonly journal: Journal }
  | { readonly type: 'declined' }
  | { readonly type: 'ran'; readonly result: RollbackResult; readonly lockLost?: Error };

export interface RollbackRunResult {
  readonly outcome: RollbackOutcome;
  readonly exitCode: ExitCode;
}

export function rollbackExitCode(result: RollbackResult): ExitCode {
  switch (result.type) {
    case 'rolled-back':
    case 'nothing-to-undo':
      return ExitCode.ok;
    case 'conflict':
      return ExitCode.failed;
    case 'stopped-at-upgrade':
      return result.error.exitCode;
    default:
      return sharedOutcomeExitCode(result);
  }
}

function noJournal(where: string): InputError {
  return new InputError('UP-ROLLBACK-NO-JOURNAL', `there is no migration journal (${where}) to roll back`, {
    location: { field: '--context / --rancher-context' },
    hint: 'check that you point at the migrated cluster (uproot status shows the journal); without a journal, follow the plan\u2019s undo steps by hand',
  });
}

export async function rollback(
  options: RollbackOptions,
  host: RunHost,
  deps: RollbackDeps = {},
): Promise<RollbackRunResult> {
  const session = openConfirmedSession(options, host, deps, 'UP-ROLLBACK-CONFIRM', {
    message: 'refusing to roll back without a confirmation',
    hint: 'run it at a terminal to confirm, pass --yes, or --dry-run to see what would be undone',
  });
  const { clock, location, journalObjects: objects } = session;
  await requireRancherCluster(session);

  // Refused before the lock is taken: an exit-2 refusal writes nothing, not even the lock's Lease.
  const store = new ConfigMapJournalStore(objects, location);
  const journal = await store.load();
  if (!journal) throw noJournal(store.where);
  if (options.dryRun) {
    const steps = stepsToUndo(journal);
    const boundary = upgradeBoundary(journal);
    deps.onSteps?.(steps, journal);
    return {
      outcome: { type: 'dry-run', steps, journal, ...(boundary ? { stopsBefore: boundary.upgrade } : {}) },
      exitCode: ExitCode.ok,
    };
  }

  const lockedRun = {
    stateDir: options.stateDir,
    purpose: 'uproot rollback',
    runId: deps.runId,
    processes: deps.processes ?? new MachineProcesses(),
    ...(deps.onEvent ? { notify: deps.onEvent } : {}),
  };
  return withLockedJournal(session, host, lockedRun, async (locked, runId) => {
    const existing = await locked.store.load();
    if (!existing) throw noJournal(locked.store.where);
    const boundary = upgradeBoundary(existing);
    const phase = journalPhase(existing);
    // Refused before anything is written (or asked): nothing after the last started upgrade is left to undo.
    if (
      boundary &&
      (phase.type === 'rolled-back' || (!existing.rollback && stepsToUndo(existing).length === 0))
    )
      throw new RollbackAcrossUpgradeError(boundary);
    if (phase.type === 'rolled-back') {
      return { outcome: { type: 'already-rolled-back', journal: existing }, exitCode: ExitCode.ok };
    }
    deps.onSteps?.(stepsToUndo(existing), existing);
    if (!options.yes && !(await host.confirm!(`Roll back the migration of ${existing.cluster.name}?`))) {
      return { outcome: { type: 'declined' }, exitCode: ExitCode.ok };
    }
    const run = {
      runId,
      command: 'rollback' as const,
      startedAt: new Date(clock.now()).toISOString(),
      resumed: !!existing.rollback,
    };
    const journal = await locked.store.save(addRun(existing, run, clock.now()));
    const execution = executionFor(journal.plan, session, {
      flags: options,
      host,
      transforms: (deps.transformsFor ?? plannerTransforms)(journal.plan),
      deps,
      signal: locked.signal,
      force: options.force ?? false,
    });
    const result = await runRollback(
      journal,
      {
        clock,
        undoChange: execution.undoChange,
        applyPlanUndo: execution.applyPlanUndo,
        runGate: execution.runGate,
        saveJournal: (j) => locked.store.save(j),
        ...(deps.onEvent ? { notify: deps.onEvent } : {}),
      },
      { signal: locked.signal },
    );
    const lockLost = locked.lockLost();
    return {
      outcome: { type: 'ran', result, ...(lockLost ? { lockLost } : {}) },
      exitCode: lockLost ? ExitCode.badInput : rollbackExitCode(result),
    };
  });
}
