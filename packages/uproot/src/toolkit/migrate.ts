/**
 * `uproot migrate` as a library call: preflight → plan → confirm → execute step by step behind gates, with the
 * journal in the cluster and the migration lock held; or, with `resume`, continue the journaled plan exactly
 * where it stopped. Every I/O dependency can be injected (tests pass the sandbox and recording callbacks).
 */
import { resolve } from 'node:path';
import { MachineProcesses } from '../adapters/process/local-processes.js';
import type { Clock } from '../clock/index.js';
import type { MigrationPlan } from '../core/model/plan-types.js';
import { ExitCode, InputError } from '../errors/index.js';
import { KubeGateReader } from '../adapters/kube/gate-reader.js';
import { ConfigMapJournalStore } from '../adapters/kube/journal-store.js';
import type { Journal, LoadBalancerRecord } from '../engine/journal/journal-schema.js';
import { addRun, createJournal, journalPhase } from '../engine/journal/journal-transitions.js';
import { nextAction, type NextAction } from '../engine/next-action.js';
import { runPlan, type RunResult } from '../engine/run-plan.js';
import { watchedLeases } from '../engine/gates/gate-runner.js';
import {
  startLeasePoller,
  stopKeepingLooks,
  type LeasePoller,
  type LookStore,
} from '../engine/gates/lease-poller.js';
import { createLeaseHandoff, type LeaseHandoff } from '../engine/gates/lease-handoff.js';
import { sharedOutcomeExitCode } from '../engine/run-outcomes.js';
import { sanitizePlan } from '../engine/sanitize.js';
import type { Clusters } from './session/cluster-access.js';
import { clusterRefOf, type journalLocationFor } from '../engine/journal/journal-location.js';
import { executionFor, openConfirmedSession, withLockedJournal, type RunDeps } from './session/locked-run.js';
import type { RunHost } from './session/run-settings.js';
import { localJournalCopies } from '../adapters/files/journal-mirror.js';
import { resumeRefusal, type ResumeInput } from './resume-decision.js';
import { planFromSources, plannerTransforms, preflightRefuses, preflightVerdict } from './migrate-sources.js';
import { rkeBinaryTooling } from './rke-tooling-probe.js';
import { ProcessRunner } from '../adapters/process/run-command.js';

// The options and preflight's verdict live beside the planning they feed (migrate-sources.ts reads them too).
export type { MigrateOptions, PreflightVerdict } from './migrate-options.js';
import type { MigrateOptions, PreflightVerdict } from './migrate-options.js';

/** What a caller may inject; every dependency has a real default (the toolkit's own preflight and planner). */
export interface MigrateDeps extends RunDeps {
  /** Runs preflight (default: src/toolkit/preflight.ts against the same targets). */
  readonly preflight?: (options: MigrateOptions) => Promise<PreflightVerdict>;
  /** Builds the plan for a fresh migration (default: --plan, the live Rancher Cluster, or --cluster-file). */
  readonly buildPlan?: (input: {
    readonly options: MigrateOptions;
    readonly clusters: Clusters;
  }) => Promise<MigrationPlan>;
  /** Called with the plan before confirmation, so the caller can show it. */
  readonly onPlan?: (
    plan: MigrationPlan,
    context: { readonly resumed: boolean; readonly journal?: Journal },
  ) => void;
}

export type MigrateOutcome =
  | { readonly type: 'dry-run'; readonly plan: MigrationPlan; readonly next?: NextAction }
  | { readonly type: 'nothing-to-do'; readonly reason: string; readonly plan?: MigrationPlan }
  | { readonly type: 'already-completed'; readonly journal: Journal }
  | { readonly type: 'declined' }
  | { readonly type: 'preflight-failed'; readonly failures: readonly string[] }
  | {
      readonly type: 'ran';
      readonly result: RunResult;
      readonly lockLost?: Error;
      readonly tookOverFrom?: string;
    };

export interface MigrateResult {
  readonly outcome: MigrateOutcome;
  readonly exitCode: ExitCode;
}

export async function migrate(
  options: MigrateOptions,
  host: RunHost,
  deps: MigrateDeps = {},
): Promise<MigrateResult> {
  const session = openConfirmedSession(options, host, deps, 'UP-MIGRATE-CONFIRM', {
    message: 'refusing to change the cluster without a confirmation',
    hint: 'run it at a terminal to confirm the plan, pass --yes to confirm in advance, or --dry-run to only see the plan',
  });
  const { clock, clusters, location, journalObjects } = session;

  const withDefaults: MigrateDeps = {
    ...deps,
    buildPlan:
      deps.buildPlan ??
      planFromSources(host.cwd, {
        ...opt('planFile', options.planFile),
        ...opt('ccmImageTag', options.ccmImageTag),
        ...opt('withNodeIpam', options.withNodeIpam),
        rkeVersion: () =>
          rkeBinaryTooling(deps.runner ?? new ProcessRunner(clock), options.rkeBinary ?? 'rke', host.cwd),
      }),
    preflight: deps.preflight ?? preflightVerdict(host.cwd, host.env, clock),
  };
  if (options.dryRun) {
    return dryRun(options, clusters, new ConfigMapJournalStore(journalObjects, location), withDefaults);
  }

  // Every refusal comes before the lock: an exit-2 answer writes nothing, not even the lock's Lease.
  const found = await new ConfigMapJournalStore(journalObjects, location).load();
  const early = resumeRefusal({
    ...refusalInput(options, found),
    location,
    localCopies: found ? [] : localJournalCopies(resolve(host.cwd, options.stateDir ?? '.uproot')),
  });
  if (early) throw early;

  const purpose = `uproot migrate${options.resume ? ' --resume' : options.autoResume ? ' --auto-resume' : ''}`;
  const lockedRun = {
    stateDir: options.stateDir,
    purpose,
    runId: deps.runId,
    processes: deps.processes ?? new MachineProcesses(),
    ...opt('notify', deps.onEvent),
  };
  return withLockedJournal(session, host, lockedRun, async (locked, runId) => {
    const existing = await locked.store.load();
    const start = await startingJournal(autoResumed(options, existing), host, withDefaults, {
      existing,
      clusters,
      location,
      runId,
      clock,
    });
    if ('outcome' in start) return start;
    requireManagement(start.journal.plan, clusters);
    const journal = await locked.store.save(start.journal);
    const execution = executionFor(journal.plan, session, {
      flags: options,
      host,
      transforms: (deps.transformsFor ?? plannerTransforms)(journal.plan),
      deps,
      signal: locked.signal,
    });
    const save = (j: Journal): Promise<Journal> => locked.store.save(j);
    const actions = { ...execution, clock, saveJournal: save, ...opt('notify', deps.onEvent) };
    const handoff = createLeaseHandoff({
      objects: clusters.downstream,
      clock,
      watched: watchedLeases(journal),
      ...opt('notify', deps.onEvent && ((message: string) => deps.onEvent?.({ type: 'note', message }))),
    });
    const result = await withLeaseLooks(execution, journal, clock, { ...locked, handoff }, (leaseLooks) =>
      runPlan(
        journal.plan,
        journal,
        { ...actions, leaseLooks },
        { signal: locked.signal, ...opt('until', options.until) },
      ),
    );
    const lockLost = locked.lockLost();
    return {
      outcome: {
        type: 'ran',
        result,
        ...opt('lockLost', lockLost),
        ...opt('tookOverFrom', locked.tookOverFrom),
      },
      exitCode: lockLost ? ExitCode.badInput : exitCodeOf(result),
    };
  });
}

/**
 * Runs `run` while the leases are looked at every second, between gates too: a handover's gap is measured
 * from the old holder's last renewal, so the journal must see it; the looks after the last gate are kept
 * when the run ends (stopKeepingLooks).
 */
async function withLeaseLooks<T>(
  execution: { readonly reader: Parameters<typeof startLeasePoller>[0]['reader'] },
  journal: Journal,
  clock: Clock,
  locked: { readonly signal: AbortSignal; readonly store: LookStore; readonly handoff: LeaseHandoff },
  run: (looks: LeasePoller) => Promise<T>,
): Promise<T> {
  const { signal, store, handoff } = locked;
  const looks = startLeasePoller({
    reader: execution.reader,
    clock,
    watched: watchedLeases(journal),
    signal,
    handoff,
  });
  try {
    return await run(looks);
  } finally {
    await stopKeepingLooks(looks, store, clock);
  }
}

/** What resumeRefusal needs from the options and the journal found (the locations come from the caller). */
function refusalInput(
  options: MigrateOptions,
  existing: Journal | undefined,
): Pick<ResumeInput, 'resume' | 'autoResume' | 'flags' | 'targetVersion' | 'existing'> {
  return {
    resume: !!autoResumed(options, existing).resume,
    autoResume: !!options.autoResume,
    flags: options,
    ...opt('targetVersion', options.targetVersion),
    existing,
  };
}

/** With autoResume, an unfinished journal is resumed as --resume would; otherwise the options as given. */
function autoResumed(options: MigrateOptions, existing: Journal | undefined): MigrateOptions {
  if (!options.autoResume || options.resume || !existing) return options;
  const phase = journalPhase(existing).type;
  return phase === 'in-progress' || phase === 'not-started' || phase === 'rolling-back'
    ? { ...options, resume: true }
    : options;
}

/** A plan that edits Rancher's provisioning Cluster needs the management cluster. */
function requireManagement(plan: MigrationPlan, clusters: Clusters): void {
  const ref = clusterRefOf(plan);
  if (ref?.api === 'management' && !clusters.management) {
    throw new InputError(
      'UP-MIGRATE-NO-RANCHER',
      `the plan edits the Rancher cluster ${ref.namespace ?? ''}/${ref.name} in the management cluster`,
      {
        location: { field: '--rancher-context' },
        hint: `pass --rancher-context with the context of Rancher's local cluster and --cluster ${ref.name}`,
      },
    );
  }
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export function exitCodeOf(result: RunResult): ExitCode {
  switch (result.type) {
    case 'completed':
    case 'stopped':
      return ExitCode.ok;
    case 'rolled-back':
      return ExitCode.badInput;
    default:
      return sharedOutcomeExitCode(result);
  }
}

type Start = { readonly journal: Journal } | MigrateResult;

/** Decides from the journal found whether to start, resume, or stop before touching anything. */
async function startingJournal(
  options: MigrateOptions,
  host: RunHost,
  deps: MigrateDeps,
  ctx: {
    readonly existing: Journal | undefined;
    readonly clusters: Clusters;
    readonly location: ReturnType<typeof journalLocationFor>;
    readonly runId: string;
    readonly clock: Clock;
  },
): Promise<Start> {
  const { existing, clock } = ctx;
  const phase = existing ? journalPhase(existing) : undefined;
  const run = {
    runId: ctx.runId,
    command: 'migrate' as const,
    startedAt: new Date(clock.now()).toISOString(),
    resumed: !!options.resume,
  };
  if (existing && phase?.type === 'completed') {
    return { outcome: { type: 'already-completed', journal: existing }, exitCode: ExitCode.ok };
  }
  // Checked before the lock was taken too; again here, where another run may have changed the journal.
  const refusal = resumeRefusal({
    ...refusalInput(options, existing),
    location: ctx.location,
    localCopies: [],
  });
  if (refusal) throw refusal;
  if (options.resume && existing) {
    deps.onPlan?.(existing.plan, { resumed: true, journal: existing });
    if (!(await confirmed(options, host, `Continue the migration of ${existing.cluster.name}?`))) {
      return { outcome: { type: 'declined' }, exitCode: ExitCode.ok };
    }
    return { journal: addRun(existing, run, clock.now()) };
  }
  const verdict = !options.skipPreflight && deps.preflight ? await deps.preflight(options) : undefined;
  const refused = (failures: readonly string[]): MigrateResult => ({
    outcome: { type: 'preflight-failed', failures },
    exitCode: ExitCode.failed,
  });
  let plan: MigrationPlan;
  try {
    plan = await deps.buildPlan!({ options, clusters: ctx.clusters });
  } catch (error) {
    // A cluster preflight already found wanting is reported as preflight's findings, not as a plan error.
    if (verdict?.outcome === 'fail') return refused(verdict.failures);
    throw error;
  }
  if (verdict && preflightRefuses(verdict, plan)) return refused(verdict.failures);
  if (plan.outcome.type === 'nothing-to-do') {
    return { outcome: { type: 'nothing-to-do', reason: plan.outcome.reason, plan }, exitCode: ExitCode.ok };
  }
  if (options.until && !plan.steps.some((s) => s.id === options.until)) {
    throw new InputError('UP-MIGRATE-UNTIL', `--until ${options.until}: the plan has no such step`, {
      location: { field: '--until', value: options.until },
      hint: `use one of: ${plan.steps.map((s) => s.id).join(', ')}`,
    });
  }
  deps.onPlan?.(plan, { resumed: false });
  if (!(await confirmed(options, host, `Apply this plan to ${plan.cluster.name}?`))) {
    return { outcome: { type: 'declined' }, exitCode: ExitCode.ok };
  }
  const loadBalancers = await recordLoadBalancers(ctx.clusters);
  const journal = createJournal({
    plan: sanitizePlan(plan),
    location: ctx.location,
    run,
    loadBalancers,
    now: clock.now(),
  });
  // A new migration replaces a finished (rolled back) journal: continue its revision count.
  return { journal: { ...journal, revision: existing?.revision ?? 0 } };
}

async function confirmed(options: MigrateOptions, host: RunHost, question: string): Promise<boolean> {
  if (options.yes) return true;
  if (!host.interactive || !host.confirm) return false;
  return host.confirm(question);
}

/** The LoadBalancer services and their ingress before the first step (the load-balancers-kept baseline). */
export async function recordLoadBalancers(clusters: Clusters): Promise<LoadBalancerRecord[]> {
  const services = await new KubeGateReader(clusters.downstream, clusters.management).loadBalancerServices();
  return services.map((s) => ({
    namespace: s.namespace,
    name: s.name,
    hostnames: [...s.hostnames],
    ips: [...s.ips],
  }));
}

async function dryRun(
  options: MigrateOptions,
  clusters: Clusters,
  store: ConfigMapJournalStore,
  deps: MigrateDeps,
): Promise<MigrateResult> {
  const existing = await store.load();
  if (autoResumed(options, existing).resume) {
    if (!existing) {
      throw new InputError('UP-MIGRATE-NOTHING-TO-RESUME', 'there is no migration journal to resume', {
        location: { field: '--resume' },
        hint: 'run `uproot migrate --dry-run` without --resume to see a new plan',
      });
    }
    deps.onPlan?.(existing.plan, { resumed: true, journal: existing });
    return {
      outcome: {
        type: 'dry-run',
        plan: existing.plan,
        next: nextAction(existing, opt('until', options.until)),
      },
      exitCode: ExitCode.ok,
    };
  }
  const plan = await deps.buildPlan!({ options, clusters });
  deps.onPlan?.(plan, { resumed: false, ...opt('journal', existing) });
  return { outcome: { type: 'dry-run', plan }, exitCode: ExitCode.ok };
}
