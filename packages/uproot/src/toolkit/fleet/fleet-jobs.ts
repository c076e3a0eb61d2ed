/**
 * `uproot fleet migrate --as-jobs`: the fleet's engine is Rancher's local cluster. After every cluster's
 * preflight (here, where the AWS credentials are), uproot makes its namespace, ServiceAccount and
 * least-privilege Roles there (core/fleet/job-manifests.ts), and one Job per cluster that passed, created
 * suspended. This process only paces them: it un-suspends Jobs while fewer than --parallel run and fewer than
 * --max-failures have failed. Each Job runs `uproot migrate --auto-resume` for its cluster, so a pod that dies
 * is replaced by one that resumes from the journal; Ctrl-C here leaves the Jobs running (run the same command
 * again to go on pacing: it adopts the Jobs it finds).
 */
import { VERSION } from '../../version.js';
import { ExitCode, InputError } from '../../errors/index.js';
import {
  DEFAULT_JOB_SETTINGS,
  JOB_SELECTOR,
  fleetExitCode,
  fleetNamespace,
  fleetRole,
  fleetServiceAccount,
  jobNameFor,
  jobStateOf,
  migrationJob,
  pacingOf,
  startsNow,
  type ClusterOutcome,
  type FleetJobSettings,
  type JobCluster,
  type JobState,
} from '../../core/fleet/index.js';
import { hasApiStatus, type KubeObject, type ObjectStore } from '../../engine/ports.js';
import { journalLocationFor, lockNameFor } from '../../engine/journal/journal-location.js';
import { ConfigMapJournalStore } from '../../adapters/kube/journal-store.js';
import { journalPhase } from '../../engine/journal/journal-transitions.js';
import type { RunHost } from '../session/run-settings.js';
import { planRancherCluster, preflightRefuses, verdictOfReport } from '../migrate-sources.js';
import {
  FLEET_MIGRATE_SCHEMA_VERSION,
  preflightFleet,
  requireFleetConfirmation,
  type FleetMigrateOptions,
  type FleetMigrateResult,
  type FleetMigrateRow,
} from './fleet-migrate.js';
import { errorRow, openFleet, type FleetDeps, type FleetMember, type FleetSession } from './fleet-session.js';

export interface FleetJobOptions {
  /** The uproot image the Jobs run (default uproot:<version>, as docs/fleet.md builds it). */
  readonly image?: string;
  /** The namespace uproot owns in the local cluster (default uproot-system). */
  readonly namespace?: string;
  readonly backoffLimit?: number;
  readonly activeDeadlineSeconds?: number;
  /** Delete a Job that failed before and make it again (the new pod resumes the cluster's journal). */
  readonly retryFailed?: boolean;
  /** How often the pacer looks at the Jobs (default 5 s). */
  readonly pollMs?: number;
}

export function jobSettingsOf(
  options: FleetJobOptions & Pick<FleetMigrateOptions, 'targetVersion' | 'gateTimeoutScale'>,
): FleetJobSettings {
  const positive = (v: number | undefined, field: string, fallback: number): number => {
    if (v === undefined) return fallback;
    if (!Number.isInteger(v) || v < 0) {
      throw new InputError('UP-FLEET-FLAGS', `${field} must be a whole number, got ${v}`, {
        location: { field, value: v },
        hint: `e.g. ${field} ${fallback}`,
      });
    }
    return v;
  };
  return {
    ...DEFAULT_JOB_SETTINGS,
    image: options.image ?? `uproot:${VERSION}`,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    backoffLimit: positive(options.backoffLimit, '--backoff-limit', DEFAULT_JOB_SETTINGS.backoffLimit),
    activeDeadlineSeconds: positive(
      options.activeDeadlineSeconds,
      '--active-deadline',
      DEFAULT_JOB_SETTINGS.activeDeadlineSeconds,
    ),
    ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
    ...(options.gateTimeoutScale ? { gateTimeoutScale: options.gateTimeoutScale } : {}),
  };
}

/** The names a cluster's Job needs granted: its Cluster, kubeconfig Secret, journal and lock. */
export function jobClusterOf(member: FleetMember): JobCluster {
  const location = journalLocationFor(member.cluster);
  return {
    ref: { namespace: member.cluster.namespace, name: member.cluster.name },
    kubeconfigSecret: member.cluster.kubeconfigSecret,
    journal: location.name,
    lock: lockNameFor(location),
  };
}

const ref = (apiVersion: string, kind: string, namespace: string | undefined, name: string) => ({
  apiVersion,
  kind,
  name,
  ...(namespace ? { namespace } : {}),
});

async function createIfMissing(objects: ObjectStore, obj: KubeObject): Promise<void> {
  try {
    await objects.create(obj);
  } catch (error) {
    if (!hasApiStatus(error, 409)) throw error;
  }
}

/**
 * Namespace, ServiceAccount, and in each namespace of Clusters the Role granting these clusters' names (on top
 * of those an earlier run granted, so its Jobs keep working) and its RoleBinding.
 */
export async function ensureFleetRbac(
  objects: ObjectStore,
  settings: FleetJobSettings,
  clusters: readonly JobCluster[],
): Promise<void> {
  await createIfMissing(objects, fleetNamespace(settings));
  await createIfMissing(objects, fleetServiceAccount(settings));
  for (const namespace of [...new Set(clusters.map((c) => c.ref.namespace))].sort()) {
    const [role, binding] = fleetRole(settings, namespace, clusters) as [KubeObject, KubeObject];
    const existing = await objects.get(
      ref('rbac.authorization.k8s.io/v1', 'Role', namespace, role.metadata!.name!),
    );
    if (!existing) await objects.create(role);
    else
      await objects.replace({
        ...role,
        metadata: { ...role.metadata, resourceVersion: existing.metadata?.resourceVersion },
        rules: unionRules(existing, role),
      });
    await createIfMissing(objects, binding);
  }
}

function unionRules(existing: KubeObject, desired: KubeObject): unknown[] {
  const old = Array.isArray(existing.rules) ? (existing.rules as Record<string, unknown>[]) : [];
  return (desired.rules as Record<string, unknown>[]).map((rule, i) => {
    const before = old[i];
    if (!rule.resourceNames || !before || !Array.isArray(before.resourceNames)) return rule;
    const names = new Set([...(before.resourceNames as string[]), ...(rule.resourceNames as string[])]);
    return { ...rule, resourceNames: [...names].sort() };
  });
}

export async function fleetMigrateAsJobs(
  options: FleetMigrateOptions & FleetJobOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetMigrateResult> {
  const pacing = pacingOf(options);
  const settings = { ...jobSettingsOf(options), suspend: true };
  requireFleetConfirmation(options, host);
  const session = await openFleet(options, host, deps);
  const { rows: preflight, skipped } = await preflightFleet(session, options, host);
  const eligible: FleetMember[] = [];
  const refused: FleetMigrateRow[] = [];
  for (const member of session.members) {
    const row = preflight.find((r) => r.cluster === member.key);
    if (row?.type !== 'ran') continue;
    const verdict = await jobVerdict(session, member, row.report, options);
    if (verdict) refused.push({ cluster: member.key, outcome: verdict });
    else eligible.push(member);
  }
  const objects = session.rancher.objects;
  await ensureFleetRbac(objects, settings, eligible.map(jobClusterOf));
  for (const member of eligible) await ensureJob(session, settings, member, options.retryFailed ?? false);
  const states = await pace(session, settings, eligible, pacing, options.pollMs ?? 5_000, host);
  const rows: FleetMigrateRow[] = [...skipped, ...refused];
  for (const member of eligible) {
    const state = states.get(member.key) ?? { type: 'none' };
    rows.push({
      cluster: member.key,
      job: jobNameFor(member.cluster),
      outcome: await jobOutcome(objects, member, state, { halted: !host.signal?.aborted }),
    });
  }
  return {
    schemaVersion: FLEET_MIGRATE_SCHEMA_VERSION,
    rows: rows.sort((a, b) => a.cluster.localeCompare(b.cluster)),
    preflight,
    exitCode: host.signal?.aborted ? ExitCode.aborted : fleetExitCode(rows.map((r) => r.outcome)),
  };
}

/** Preflight's verdict for a Job: a failed check stops it unless the plan's own steps fix it. */
async function jobVerdict(
  session: FleetSession,
  member: FleetMember,
  report: Parameters<typeof verdictOfReport>[0],
  options: FleetMigrateOptions,
): Promise<ClusterOutcome | undefined> {
  const verdict = verdictOfReport(report);
  if (verdict.outcome !== 'fail') return undefined;
  try {
    const plan = await planRancherCluster(session.rancher.objects, member.key, {
      ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
      ...(options.ccmImageTag ? { ccmImageTag: options.ccmImageTag } : {}),
    });
    return preflightRefuses(verdict, plan)
      ? { type: 'preflight-failed', failedChecks: verdict.failedChecks ?? [] }
      : undefined;
  } catch (error) {
    const e = errorRow(error);
    return { type: 'failed', code: e.code, reason: e.message };
  }
}

async function ensureJob(
  session: FleetSession,
  settings: FleetJobSettings,
  member: FleetMember,
  retryFailed: boolean,
): Promise<void> {
  const objects = session.rancher.objects;
  const job = migrationJob(settings, jobClusterOf(member)) as KubeObject;
  const key = ref('batch/v1', 'Job', settings.namespace, job.metadata!.name!);
  const existing = await objects.get(key);
  if (existing && retryFailed && jobStateOf(existing).type === 'failed') {
    session.progress(`${member.key}: deleting the failed Job ${key.name} to try again`);
    await objects.delete(key, { uid: existing.metadata?.uid ?? '' });
  } else if (existing) {
    session.progress(`${member.key}: Job ${key.name} exists (${jobStateOf(existing).type}); adopting it`);
    return;
  }
  try {
    await objects.create(job);
  } catch (error) {
    // A second fleet run made it first: one Job per cluster, whoever made it.
    if (!hasApiStatus(error, 409)) throw error;
  }
}

/** Un-suspends Jobs under the caps until every Job finished, starts are halted with none running, or Ctrl-C. */
async function pace(
  session: FleetSession,
  settings: FleetJobSettings,
  members: readonly FleetMember[],
  pacing: ReturnType<typeof pacingOf>,
  pollMs: number,
  host: RunHost,
): Promise<Map<string, JobState>> {
  const names = new Map(members.map((m) => [jobNameFor(m.cluster), m.key]));
  const seen = new Map<string, string>();
  for (;;) {
    const jobs = (
      await session.rancher.objects.list('batch/v1', 'Job', {
        namespace: settings.namespace,
        labelSelector: JOB_SELECTOR,
      })
    ).filter((j) => names.has(j.metadata?.name ?? ''));
    const states = new Map(jobs.map((j) => [names.get(j.metadata!.name!)!, jobStateOf(j)]));
    for (const [key, state] of states) {
      const text = state.type === 'failed' ? `failed: ${state.reason} ${state.message}` : state.type;
      if (seen.get(key) !== text) session.progress(`${key}: Job ${text}`);
      seen.set(key, text);
    }
    const list = [...states.values()];
    const running = list.filter((s) => s.type === 'running').length;
    const failed = list.filter((s) => s.type === 'failed').length;
    const waiting = members.map((m) => m.key).filter((k) => states.get(k)?.type === 'queued');
    const { start, halted } = startsNow({ waiting, running, failed }, pacing);
    if (!host.signal?.aborted) {
      for (const key of start) {
        const job = jobs.find((j) => names.get(j.metadata!.name!) === key)!;
        await session.rancher.objects.patch(
          ref('batch/v1', 'Job', settings.namespace, job.metadata!.name!),
          'merge',
          {
            spec: { suspend: false },
          },
        );
        states.set(key, { type: 'running', failedPods: 0 });
      }
    }
    const finished = [...states.values()].every((s) => s.type === 'succeeded' || s.type === 'failed');
    const stuck = (halted || host.signal?.aborted) && ![...states.values()].some((s) => s.type === 'running');
    if (finished || stuck || host.signal?.aborted) return states;
    try {
      await session.clock.sleep(pollMs, host.signal);
    } catch {
      return states;
    }
  }
}

/** A Job's end, with its cluster's journal for what the migration did. */
async function jobOutcome(
  objects: ObjectStore,
  member: FleetMember,
  state: JobState,
  context: { readonly halted: boolean },
): Promise<ClusterOutcome> {
  const job = jobNameFor(member.cluster);
  if (state.type === 'running') return { type: 'running', job };
  if (state.type === 'queued' || state.type === 'none')
    return { type: 'not-started', because: context.halted ? 'max-failures' : 'interrupted' };
  const journal = await new ConfigMapJournalStore(objects, journalLocationFor(member.cluster))
    .load()
    .catch(() => undefined);
  if (state.type === 'succeeded') {
    if (!journal) return { type: 'nothing-to-do', reason: 'the Job found nothing to migrate' };
    return journalPhase(journal).type === 'completed'
      ? { type: 'migrated' }
      : {
          type: 'failed',
          code: 'UP-FLEET-JOB-FAILED',
          reason: 'the Job ended before the migration completed',
        };
  }
  const phase = journal ? journalPhase(journal) : undefined;
  const failedStep = journal?.steps.find((s) => s.state === 'failed');
  return {
    type: 'failed',
    code: failedStep?.state === 'failed' ? failedStep.code : 'UP-FLEET-JOB-FAILED',
    reason: failedStep?.state === 'failed' ? failedStep.reason : `${state.reason}: ${state.message}`,
    ...(phase?.type === 'in-progress' ? { step: phase.step } : {}),
  };
}
