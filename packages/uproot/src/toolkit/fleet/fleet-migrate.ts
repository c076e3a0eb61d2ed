/**
 * `uproot fleet migrate` in this process: every selected cluster's preflight first, then `uproot migrate` for
 * each (src/toolkit/migrate.ts, with its own journal and lock beside its Cluster, exactly as one cluster at a
 * time), at most --parallel at once, no new start once --max-failures have failed. A cluster whose preflight
 * fails is skipped by migrate's own rule; one that cannot be reached or is locked by another run is reported
 * and left alone. `--as-jobs` hands the same work to Kubernetes Jobs instead (fleet-jobs.ts).
 */
import { resolve } from 'node:path';
import type { StepId } from '../../core/model/plan-types.js';
import type { EngineEvent } from '../../engine/events.js';
import { countsAsFailure, fleetExitCode, pacingOf, type ClusterOutcome } from '../../core/fleet/index.js';
import { ExitCode, InternalError } from '../../errors/index.js';
import { migrate, type MigrateDeps, type MigrateOptions, type MigrateResult } from '../migrate.js';
import { verdictOfReport } from '../migrate-sources.js';
import { requireConfirmation } from '../session/locked-run.js';
import type { ExecutionFlags, RunHost } from '../session/run-settings.js';
import {
  missingRows,
  preflightMembers,
  type FleetPreflightOptions,
  type FleetPreflightRow,
} from './fleet-preflight.js';
import {
  errorRow,
  objectsOf,
  openFleet,
  paced,
  type FleetDeps,
  type FleetMember,
  type FleetSession,
} from './fleet-session.js';

export const FLEET_MIGRATE_SCHEMA_VERSION = 'uproot.dev/fleet-migrate/v1';

export interface FleetMigrateOptions extends FleetPreflightOptions, ExecutionFlags {
  /** Do not ask (required without a terminal). */
  readonly yes?: boolean;
  /** No new migration starts once this many have failed (default 1). */
  readonly maxFailures?: number;
  readonly until?: StepId;
  readonly ccmImageTag?: string;
  /** Where each cluster's local journal copy goes: <stateDir>/<cluster>/ (default .uproot). */
  readonly stateDir?: string;
}

export interface FleetMigrateRow {
  readonly cluster: string;
  readonly outcome: ClusterOutcome;
  /** The Job that ran it (--as-jobs). */
  readonly job?: string;
}

export interface FleetMigrateResult {
  readonly schemaVersion: typeof FLEET_MIGRATE_SCHEMA_VERSION;
  readonly rows: readonly FleetMigrateRow[];
  readonly preflight: readonly FleetPreflightRow[];
  readonly exitCode: ExitCode;
}

export interface FleetMigrateDeps
  extends FleetDeps, Pick<MigrateDeps, 'runner' | 'processes' | 'inference' | 'transformsFor'> {
  /** Each cluster's engine events, for progress lines. */
  readonly onEvent?: (cluster: string, event: EngineEvent) => void;
}

/** Refuses to change a fleet without --yes (or a person at a terminal to ask). */
export function requireFleetConfirmation(options: { readonly yes?: boolean }, host: RunHost): void {
  requireConfirmation(options, host, 'UP-FLEET-CONFIRM', {
    message: 'refusing to migrate clusters without a confirmation',
    hint: 'run it at a terminal to confirm, or pass --yes to confirm in advance; `uproot fleet plan` shows what would change',
  });
}

/** Preflight of the whole selection, then what can proceed: the rows, and the members to go on with. */
export async function preflightFleet(
  session: FleetSession,
  options: FleetPreflightOptions,
  host: RunHost,
): Promise<{ readonly rows: FleetPreflightRow[]; readonly skipped: FleetMigrateRow[] }> {
  const rows = [
    ...missingRows(session),
    ...(await preflightMembers(session, session.members, options, host, pacingOf(options).parallel)),
  ];
  const skipped = rows.flatMap((r): FleetMigrateRow[] =>
    r.type === 'ran'
      ? []
      : [
          {
            cluster: r.cluster,
            outcome:
              r.code === 'UP-FLEET-UNSUPPORTED'
                ? { type: 'unsupported', reason: r.message }
                : { type: 'unreachable', code: r.code, reason: r.message },
          },
        ],
  );
  return { rows, skipped };
}

export async function fleetMigrate(
  options: FleetMigrateOptions,
  host: RunHost,
  deps: FleetMigrateDeps = {},
): Promise<FleetMigrateResult> {
  const pacing = pacingOf(options);
  requireFleetConfirmation(options, host);
  const session = await openFleet(options, host, deps);
  const { rows: preflight, skipped } = await preflightFleet(session, options, host);
  const ready = session.members.filter((m) => preflight.some((r) => r.cluster === m.key && r.type === 'ran'));
  if (!(await confirmed(options, host, ready))) {
    // Declined: nothing was done, which is a success (README, Exit codes); 130 is for an interrupted run.
    return { schemaVersion: FLEET_MIGRATE_SCHEMA_VERSION, rows: [], preflight, exitCode: ExitCode.ok };
  }
  const byKey = new Map(ready.map((m) => [m.key, m]));
  const results = await paced(
    ready.map((m) => m.key),
    pacing,
    { failed: countsAsFailure, ...(host.signal ? { signal: host.signal } : {}) },
    async (key) => {
      const member = byKey.get(key)!;
      const report = preflight.find((r) => r.cluster === key);
      session.progress(`${key}: migrating`);
      const outcome = await migrateMember(session, member, options, host, deps, report);
      session.progress(`${key}: ${outcome.type}`);
      return outcome;
    },
  );
  const rows: FleetMigrateRow[] = [
    ...skipped,
    ...ready.map((m) => ({
      cluster: m.key,
      outcome:
        results.get(m.key) ??
        ({
          type: 'not-started',
          because: host.signal?.aborted ? 'interrupted' : 'max-failures',
        } satisfies ClusterOutcome),
    })),
  ];
  return {
    schemaVersion: FLEET_MIGRATE_SCHEMA_VERSION,
    rows: rows.sort((a, b) => a.cluster.localeCompare(b.cluster)),
    preflight,
    exitCode: fleetExitCode(rows.map((r) => r.outcome)),
  };
}

async function confirmed(
  options: { yes?: boolean },
  host: RunHost,
  ready: readonly FleetMember[],
): Promise<boolean> {
  if (options.yes || ready.length === 0) return true;
  return (
    (await host.confirm?.(`Migrate ${ready.length} clusters (${ready.map((m) => m.key).join(', ')})?`)) ??
    false
  );
}

/** One cluster's `uproot migrate`, reached through Rancher, judged by the fleet's preflight of it. */
async function migrateMember(
  session: FleetSession,
  member: FleetMember,
  options: FleetMigrateOptions,
  host: RunHost,
  deps: FleetMigrateDeps,
  preflightRow: FleetPreflightRow | undefined,
): Promise<ClusterOutcome> {
  let downstream;
  try {
    downstream = objectsOf(session, await session.downstreamConfig(member));
  } catch (error) {
    const e = errorRow(error);
    return { type: 'unreachable', code: e.code, reason: e.message };
  }
  const report = preflightRow?.type === 'ran' ? preflightRow.report : undefined;
  const migrateOptions: MigrateOptions = {
    ...executionOf(options),
    cluster: member.key,
    ...(options.rancherContext
      ? {
          rancherContext: options.rancherContext,
          ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
        }
      : { rancherInCluster: true }),
    yes: true,
    stateDir: resolve(host.cwd, options.stateDir ?? '.uproot'),
    ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
    ...(options.ccmImageTag ? { ccmImageTag: options.ccmImageTag } : {}),
    ...(options.until ? { until: options.until } : {}),
    ...(report ? {} : { skipPreflight: true }),
  };
  try {
    const result = await migrate(
      migrateOptions,
      { ...host, interactive: false },
      {
        clock: session.clock,
        random: session.random,
        connect: () => ({ downstream, management: session.rancher.objects }),
        ...(report ? { preflight: async () => verdictOfReport(report) } : {}),
        ...(deps.runner ? { runner: deps.runner } : {}),
        ...(deps.processes ? { processes: deps.processes } : {}),
        ...(deps.inference ? { inference: deps.inference } : {}),
        ...(deps.transformsFor ? { transformsFor: deps.transformsFor } : {}),
        ...(deps.onEvent ? { onEvent: (e: EngineEvent) => deps.onEvent!(member.key, e) } : {}),
      },
    );
    return outcomeOf(result, report?.checks.filter((c) => c.status === 'fail').map((c) => c.id) ?? []);
  } catch (error) {
    return thrownOutcome(error);
  }
}

function executionOf(options: FleetMigrateOptions): ExecutionFlags {
  const keys: (keyof ExecutionFlags)[] = [
    'gateTimeoutScale',
    'rkeBinary',
    'rkeTimeoutSeconds',
    'manifestsOut',
    'nodeCommand',
    'nodeDeleteCommand',
    'nodeCommandTimeoutSeconds',
    'manualDone',
  ];
  return Object.fromEntries(keys.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
}

/** What `uproot migrate` returned, as the fleet reports it. */
export function outcomeOf(result: MigrateResult, failedChecks: readonly string[]): ClusterOutcome {
  const o = result.outcome;
  switch (o.type) {
    case 'already-completed':
      return { type: 'already-completed' };
    case 'nothing-to-do':
      return { type: 'nothing-to-do', reason: o.reason };
    case 'preflight-failed':
      return { type: 'preflight-failed', failedChecks };
    case 'declined':
    case 'dry-run':
      return { type: 'not-started', because: 'interrupted' };
    case 'ran':
      if (o.lockLost) return failedWith(o.lockLost);
      return runOutcome(o.result);
  }
}

function runOutcome(r: Extract<MigrateResult['outcome'], { type: 'ran' }>['result']): ClusterOutcome {
  switch (r.type) {
    case 'completed':
      return { type: 'migrated' };
    case 'stopped':
      return { type: 'stopped', after: r.after };
    case 'waiting-for-person':
      return { type: 'waiting-for-person', step: r.step };
    case 'interrupted':
      return { type: 'interrupted', ...(r.step ? { step: r.step } : {}) };
    case 'rolled-back':
      return { type: 'failed', code: 'UP-MIGRATE-ROLLED-BACK', reason: 'the migration was rolled back' };
    case 'gate-failed': {
      // The engine records a failed gate in the journal (code UP-GATE-<TYPE>) before it returns.
      const record = r.journal.steps.find((s) => s.id === r.step);
      return record?.state === 'failed'
        ? { type: 'failed', step: r.step, code: record.code, reason: record.reason }
        : failedWith(new InternalError(`gate ${r.gate.type} failed unrecorded`), r.step);
    }
    case 'apply-failed':
      return { type: 'failed', step: r.step, code: r.error.code, reason: r.error.message };
  }
}

function failedWith(error: unknown, step?: string): ClusterOutcome {
  const e = errorRow(error);
  return { type: 'failed', code: e.code, reason: e.message, ...(step ? { step } : {}) };
}

/** migrate threw before or around the run: a lock held elsewhere, an unreachable cluster, or a failure. */
export function thrownOutcome(error: unknown): ClusterOutcome {
  const e = errorRow(error);
  if (e.code === 'UP-LOCK-HELD' || e.code === 'UP-LOCK-CONTENDED')
    return { type: 'locked', reason: e.message };
  if (
    e.code === 'UP-KUBE-UNREACHABLE' ||
    e.code === 'UP-KUBE-ACCESS' ||
    e.code === 'UP-RANCHER-KUBECONFIG-MISSING' ||
    e.code === 'UP-RANCHER-KUBECONFIG-INVALID' ||
    e.code === 'UP-CLUSTER-NOT-FOUND'
  )
    return { type: 'unreachable', code: e.code, reason: e.message };
  return { type: 'failed', code: e.code, reason: e.message };
}
