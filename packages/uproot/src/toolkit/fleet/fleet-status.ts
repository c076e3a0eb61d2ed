/**
 * `uproot fleet status`: for every selected cluster, its journal beside its Cluster in Rancher's local cluster
 * (the step it is at, or how it ended), who holds its migration lock, and its Job when it runs as one; one
 * verdict from them (core/fleet/fleet-status.ts). Reads only the local cluster: a downstream cluster that cannot
 * be reached still shows where its migration stands. `watchFleetStatus` repeats it on the clock.
 */
import { ConfigMapJournalStore } from '../../adapters/kube/journal-store.js';
import {
  FLEET_NAMESPACE,
  JOB_SELECTOR,
  LABELS,
  clusterVerdict,
  jobStateOf,
  verdictCounts,
  type ClusterVerdict,
  type FleetStatusRow,
  type JobState,
  type MigrationProgress,
} from '../../core/fleet/index.js';
import { UprootError } from '../../errors/index.js';
import type { Journal } from '../../engine/journal/journal-schema.js';
import { journalLocationFor, lockNameFor } from '../../engine/journal/journal-location.js';
import { journalPhase } from '../../engine/journal/journal-transitions.js';
import { decideLock, type LockLease } from '../../engine/lock/lock-decision.js';
import type { ObjectStore } from '../../engine/ports.js';
import type { RunHost } from '../session/run-settings.js';
import { errorRow, openFleet, type FleetDeps, type FleetMember, type FleetTargets } from './fleet-session.js';

export const FLEET_STATUS_SCHEMA_VERSION = 'uproot.dev/fleet-status/v1';

export interface FleetStatusOptions extends FleetTargets {
  /** Where the migration Jobs are (default uproot-system). */
  readonly namespace?: string;
}

export interface FleetStatusReport {
  readonly schemaVersion: typeof FLEET_STATUS_SCHEMA_VERSION;
  readonly readAt: string;
  readonly rows: readonly FleetStatusRow[];
  readonly counts: Record<ClusterVerdict, number>;
}

export async function fleetStatus(
  options: FleetStatusOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetStatusReport> {
  const session = await openFleet(options, host, deps);
  const objects = session.rancher.objects;
  const jobs = await readJobs(objects, options.namespace ?? FLEET_NAMESPACE);
  const now = session.clock.now();
  const rows = await Promise.all(
    session.members.map(async (member): Promise<FleetStatusRow> => {
      const [progress, lockHolder] = await Promise.all([
        readProgress(objects, member),
        readLock(objects, member, now),
      ]);
      const job = jobs.get(member.key) ?? { type: 'none' as const };
      return {
        cluster: member.key,
        verdict: clusterVerdict(progress, job),
        progress,
        job,
        ...(lockHolder ? { lockHolder } : {}),
      };
    }),
  );
  return {
    schemaVersion: FLEET_STATUS_SCHEMA_VERSION,
    readAt: new Date(now).toISOString(),
    rows,
    counts: verdictCounts(rows),
  };
}

/** Reports every `intervalMs` on the clock until `host.signal` aborts; resolves with the last report. */
export async function watchFleetStatus(
  options: FleetStatusOptions,
  host: RunHost,
  deps: FleetDeps & { readonly intervalMs?: number },
  onReport: (report: FleetStatusReport) => void,
): Promise<FleetStatusReport | undefined> {
  let last: FleetStatusReport | undefined;
  const session = await openFleet(options, host, deps);
  const keep = { ...deps, rancher: session.rancher, clock: session.clock };
  while (!host.signal?.aborted) {
    try {
      last = await fleetStatus(options, host, keep);
      onReport(last);
    } catch (error) {
      if (!UprootError.is(error) || error.exitCode === 2) throw error;
    }
    try {
      await session.clock.sleep(deps.intervalMs ?? 5_000, host.signal);
    } catch {
      break;
    }
  }
  return last;
}

async function readJobs(objects: ObjectStore, namespace: string): Promise<Map<string, JobState>> {
  const jobs = await objects
    .list('batch/v1', 'Job', { namespace, labelSelector: JOB_SELECTOR })
    .catch((error) => {
      // No Jobs API access (a person without rights on uproot-system): status from the journals alone.
      if (UprootError.is(error) && [403, 404].includes((error as { status?: number }).status ?? 0)) return [];
      throw error;
    });
  const byCluster = new Map<string, JobState>();
  for (const job of jobs) {
    const cluster = (job.metadata?.annotations as Record<string, string> | undefined)?.[LABELS.cluster];
    if (cluster) byCluster.set(cluster, jobStateOf(job));
  }
  return byCluster;
}

export async function readJournal(objects: ObjectStore, member: FleetMember): Promise<Journal | undefined> {
  return new ConfigMapJournalStore(objects, journalLocationFor(member.cluster)).load();
}

async function readProgress(objects: ObjectStore, member: FleetMember): Promise<MigrationProgress> {
  let journal: Journal | undefined;
  try {
    journal = await readJournal(objects, member);
  } catch (error) {
    return { type: 'unreadable', reason: errorRow(error).message };
  }
  return journal ? progressOf(journal) : { type: 'no-migration' };
}

/** A journal as fleet status shows it. */
export function progressOf(journal: Journal): MigrationProgress {
  const verified = journal.steps.filter((s) => s.state === 'verified').length;
  const total = journal.steps.length;
  const phase = journalPhase(journal);
  if (phase.type !== 'in-progress') return { type: phase.type, verified, total };
  const record = journal.steps.find((s) => s.id === phase.step);
  return {
    type: 'in-progress',
    step: phase.step,
    state: phase.state,
    verified,
    total,
    ...(record?.state === 'failed' ? { failure: { code: record.code, reason: record.reason } } : {}),
  };
}

async function readLock(objects: ObjectStore, member: FleetMember, now: number): Promise<string | undefined> {
  const location = journalLocationFor(member.cluster);
  const lease = await objects
    .get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: location.namespace,
      name: lockNameFor(location),
    })
    .catch(() => undefined);
  const spec = lease?.spec as LockLease | undefined;
  if (!spec?.holderIdentity) return undefined;
  return decideLock(spec, '', now).type === 'held' ? spec.holderIdentity : undefined;
}
