/**
 * `uproot rollback` as a library call: undo the journaled steps, last first, from the engine's backups and
 * records, each behind the gates that held before it, back to the in-tree state (seed 003: with leader
 * migration on, kube-controller-manager regains the migration lease). Idempotent: a crashed or stopped
 * rollback is continued by running it again.
 */
import { connectJournalSession } from '../engine/session/journal-session.js';
import { resolve } from 'node:path';
import type { Clock, Random } from '../clock/index.js';
import type { MigrationPlan, PlanStep } from '../core/plan/plan-types.js';
import { ExitCode, InputError } from '../errors/index.js';
import { ConfigMapJournalStore } from '../adapters/kube/journal-store.js';
import { ProcessRunner, type CommandRunner } from '../adapters/process/run-command.js';
import type { StepTransforms } from '../engine/appliers/applier-types.js';
import type { EventSink } from '../engine/events.js';
import type { OwnershipInference } from '../engine/gates/ownership.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import { addRun, journalPhase } from '../engine/journal/journal-transitions.js';
import { stepsToUndo } from '../engine/rollback/rollback-order.js';
import { runRollback, type RollbackResult } from '../engine/rollback/run-rollback.js';
import type { Connect } from '../engine/session/cluster-access.js';
import { wireExecution } from '../engine/session/engine-wiring.js';
import { newRunId, openLockedJournal } from '../engine/session/locked-journal.js';
import {
  executionSettings,
  validateTargets,
  type ExecutionFlags,
  type RunHost,
  type TargetFlags,
} from '../engine/session/run-settings.js';
import { plannerTransforms } from './migrate-sources.js';

export interface RollbackOptions extends TargetFlags, ExecutionFlags {
  readonly yes?: boolean;
  /** Show what would be undone; change nothing. */
  readonly dryRun?: boolean;
  /** Restore the values from before the migration even where someone edited a field since. */
  readonly force?: boolean;
  readonly stateDir?: string;
}

export interface RollbackDeps {
  readonly clock?: Clock;
  readonly random?: Random;
  readonly connect?: Connect;
  /** The distribution's pure step transformations for a plan (default: the planners'). */
  readonly transformsFor?: (plan: MigrationPlan) => StepTransforms;
  readonly runner?: CommandRunner;
  readonly inference?: OwnershipInference;
  readonly onEvent?: EventSink;
  /** Called with the steps to undo (last first) before confirmation. */
  readonly onSteps?: (steps: readonly PlanStep[], journal: Journal) => void;
  readonly runId?: string;
}

export type RollbackOutcome =
  | { readonly type: 'dry-run'; readonly steps: readonly PlanStep[]; readonly journal: Journal }
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
    case 'gate-failed':
    case 'conflict':
    case 'waiting-for-person':
      return ExitCode.failed;
    case 'undo-failed':
      return result.error.exitCode;
    case 'interrupted':
      return ExitCode.aborted;
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
  validateTargets(options);
  if (!options.dryRun && !options.yes && !(host.interactive && host.confirm)) {
    throw new InputError('UP-ROLLBACK-CONFIRM', 'refusing to roll back without a confirmation', {
      location: { field: '--yes' },
      hint: 'run it at a terminal to confirm, pass --yes, or --dry-run to see what would be undone',
    });
  }
  const {
    clock,
    random,
    clusters,
    location,
    journalObjects: objects,
  } = connectJournalSession(options, host, deps);

  if (options.dryRun) {
    const store = new ConfigMapJournalStore(objects, location);
    const journal = await store.load();
    if (!journal) throw noJournal(store.where);
    const steps = stepsToUndo(journal);
    deps.onSteps?.(steps, journal);
    return { outcome: { type: 'dry-run', steps, journal }, exitCode: ExitCode.ok };
  }

  const runId = deps.runId ?? newRunId(random);
  const session = await openLockedJournal({
    objects,
    location,
    runId,
    clock,
    stateDir: resolve(host.cwd, options.stateDir ?? '.uproot'),
    purpose: 'uproot rollback',
    ...(host.signal ? { signal: host.signal } : {}),
  });
  try {
    const existing = await session.store.load();
    if (!existing) throw noJournal(session.store.where);
    if (journalPhase(existing).type === 'rolled-back') {
      return { outcome: { type: 'already-rolled-back', journal: existing }, exitCode: ExitCode.ok };
    }
    deps.onSteps?.(stepsToUndo(existing), existing);
    if (!options.yes && !(await host.confirm!(`Roll back the migration of ${existing.cluster.name}?`))) {
      return { outcome: { type: 'declined' }, exitCode: ExitCode.aborted };
    }
    const run = {
      runId,
      command: 'rollback' as const,
      startedAt: new Date(clock.now()).toISOString(),
      resumed: !!existing.rollback,
    };
    const journal = await session.store.save(addRun(existing, run, clock.now()));
    const settings = executionSettings(
      options,
      host,
      {
        clock,
        random,
        runner: deps.runner ?? new ProcessRunner(clock),
        transforms: (deps.transformsFor ?? plannerTransforms)(journal.plan),
        ...(deps.inference ? { inference: deps.inference } : {}),
        ...(deps.onEvent ? { notify: deps.onEvent } : {}),
      },
      { signal: session.signal, force: options.force ?? false },
    );
    const execution = wireExecution(journal.plan, clusters, settings);
    const result = await runRollback(
      journal,
      {
        clock,
        undoChange: execution.undoChange,
        applyPlanUndo: execution.applyPlanUndo,
        runGate: execution.runGate,
        saveJournal: (j) => session.store.save(j),
        ...(deps.onEvent ? { notify: deps.onEvent } : {}),
      },
      { signal: session.signal },
    );
    const lockLost = session.lockLost();
    return {
      outcome: { type: 'ran', result, ...(lockLost ? { lockLost } : {}) },
      exitCode: lockLost ? ExitCode.badInput : rollbackExitCode(result),
    };
  } finally {
    await session.release();
  }
}
