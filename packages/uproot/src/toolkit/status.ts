/**
 * `uproot status` as a library call: the journal (from the cluster, or the local copy when the cluster cannot
 * be read), the current step and what comes next, who holds the managers' leases and the migration lock, and
 * the ownership timeline. Read-only. `watchStatus` repeats it on the injected clock until aborted.
 */
import { connectJournalSession, requireRancherCluster } from './session/journal-session.js';
import { resolve } from 'node:path';
import { RealClock, type Clock, type Random } from '../clock/index.js';
import type { StepId } from '../core/model/plan-types.js';
import { UprootError } from '../errors/index.js';
import { JournalMirror, mirroredClusters } from '../adapters/files/journal-mirror.js';
import { KubeGateReader, leaseFacts } from '../adapters/kube/gate-reader.js';
import { readOwnershipEvidence } from './ownership-evidence.js';
import { ConfigMapJournalStore } from '../adapters/kube/journal-store.js';
import type { ObjectStore } from '../engine/ports.js';
import { decideLock, type LockLease } from '../engine/lock/lock-decision.js';
import {
  LEASE_NAMESPACE,
  leaseOverlapInference,
  plannedNotConfigured,
  promiseFigures,
  promiseRows,
  type ControllerRow,
  type OwnershipEvidence,
  ownershipInference,
  type OwnershipInference,
  type OwnershipOverlap,
} from '../core/ownership/index.js';
import { watchedLeases, DEFAULT_MIGRATION_LEASE } from '../engine/gates/gate-runner.js';
import type { Journal, LeaseRecord, StepRecord } from '../engine/journal/journal-schema.js';
import { journalPhase, type JournalPhase } from '../engine/journal/journal-transitions.js';
import { nextAction, type NextAction } from '../engine/next-action.js';
import { kubeconfigConnect, type Connect } from './session/cluster-access.js';
import { lockNameFor, type journalLocationFor } from '../engine/journal/journal-location.js';
import type { RunHost } from './session/run-settings.js';
import { validateTargets, type TargetFlags } from './targets.js';

export const STATUS_SCHEMA_VERSION = 'uproot.dev/status/v1';

export interface StatusOptions extends TargetFlags {
  readonly stateDir?: string;
}

export interface StatusStep {
  readonly id: StepId;
  readonly title: string;
  readonly state: StepRecord['state'];
  /** When the step last changed state. */
  readonly at?: string;
  /** Why it failed, and what to do. */
  readonly reason?: string;
  readonly fix?: string;
}

export interface LeaseHolder {
  readonly name: string;
  readonly holder: string;
  readonly renewedSecondsAgo?: number;
}

export interface StatusReport {
  readonly schemaVersion: typeof STATUS_SCHEMA_VERSION;
  readonly readAt: string;
  /** Where the journal came from. */
  readonly source: 'cluster' | 'local-copy' | 'none';
  readonly where: string;
  /** Why the cluster could not be read, when the local copy is shown. */
  readonly clusterError?: string;
  /** The journal is not where the flags point; the local copy is shown, and this names the flags that reach it. */
  readonly elsewhere?: string;
  readonly cluster?: { readonly name: string; readonly distro: string };
  readonly phase: JournalPhase | { readonly type: 'no-migration' };
  readonly next?: NextAction;
  readonly steps: readonly StatusStep[];
  readonly leases: readonly LeaseHolder[];
  readonly lock?: { readonly holder: string; readonly renewedSecondsAgo: number; readonly expired: boolean };
  readonly timeline: readonly LeaseRecord[];
  readonly overlaps: readonly OwnershipOverlap[];
  /**
   * Per controller over the whole run, from the journal's lease observations, as the one account's rows
   * (migrated first): overlapSeconds (must be 0) and maxGapSeconds (at most boundSeconds),
   * core/ownership/promise-figures.ts.
   */
  readonly controllers: readonly ControllerRow[];
}

export interface StatusDeps {
  readonly clock?: Clock;
  readonly random?: Random;
  readonly connect?: Connect;
  readonly inference?: OwnershipInference;
}

function stepsOf(journal: Journal): StatusStep[] {
  return journal.steps.map((record) => {
    const title = journal.plan.steps.find((s) => s.id === record.id)?.title ?? record.id;
    const base = { id: record.id, title, state: record.state };
    switch (record.state) {
      case 'pending':
        return base;
      case 'applying':
        return { ...base, at: record.startedAt };
      case 'applied':
      case 'verifying':
        return { ...base, at: record.appliedAt };
      case 'verified':
        return { ...base, at: record.verifiedAt };
      case 'failed':
        return { ...base, at: record.failedAt, reason: record.reason, fix: record.fix };
      case 'rolled-back':
        return { ...base, at: record.rolledBackAt };
    }
  });
}

const secondsSince = (now: number, time: string | undefined): number | undefined => {
  const t = time ? Date.parse(time) : NaN;
  return Number.isNaN(t) ? undefined : Math.max(0, Math.round((now - t) / 1000));
};

/** The local copy when the cluster cannot be read: the named cluster's, or the only one there is. */
function localCopy(stateDir: string, name: string | undefined): Journal | undefined {
  if (name) return new JournalMirror(stateDir, name).read();
  const dirs = mirroredClusters(stateDir);
  return dirs.length === 1 ? new JournalMirror(stateDir, dirs[0]!).read() : undefined;
}

function flagsFor(copy: Journal, looked: string): string {
  const { api, namespace } = copy.location;
  const reach =
    api === 'management'
      ? `--rancher-context <the context of Rancher's local cluster> --cluster ${namespace}/${copy.cluster.name}`
      : '--context <the context of the cluster> (or --kubeconfig)';
  return `no journal in ${looked}; the migration of ${copy.cluster.name} keeps it in the ${api === 'management' ? "Rancher management cluster's" : "cluster's"} ${namespace}/${copy.location.name}: pass ${reach}`;
}

export async function status(
  options: StatusOptions,
  host: RunHost,
  deps: StatusDeps = {},
): Promise<StatusReport> {
  validateTargets(options);
  const session = connectJournalSession(options, host, deps);
  const { clock, clusters, rancher, location, journalObjects: objects } = session;
  const store = new ConfigMapJournalStore(objects, location);
  const stateDir = resolve(host.cwd, options.stateDir ?? '.uproot');

  let journal: Journal | undefined;
  let source: StatusReport['source'] = 'none';
  let where = store.where;
  let clusterError: string | undefined;
  try {
    journal = await store.load();
    if (journal) source = 'cluster';
  } catch (error) {
    if (!UprootError.is(error) || error.code === 'UP-JOURNAL-CORRUPT') throw error;
    clusterError = error.message;
    journal = localCopy(stateDir, rancher?.name);
    if (journal) {
      source = 'local-copy';
      where = new JournalMirror(stateDir, journal.cluster.name).path;
    }
  }
  let elsewhere: string | undefined;
  if (!journal && !clusterError) {
    await requireRancherCluster(session);
    // Not where these flags point: a run with other flags (Rancher's) left its local copy here.
    const copy = localCopy(stateDir, rancher?.name);
    if (copy && copy.location.name !== location.name) {
      journal = copy;
      source = 'local-copy';
      where = new JournalMirror(stateDir, copy.cluster.name).path;
      elsewhere = flagsFor(copy, store.where);
    } else if (!copy && !rancher) {
      elsewhere =
        "a migration of RKE2 under Rancher keeps its journal in Rancher's management cluster: pass --rancher-context and --cluster as migrate had them";
    }
  }
  const now = clock.now();
  const live = clusterError
    ? { leases: [], lock: undefined }
    : await readLive(clusters.downstream, objects, location, journal, now);
  const timeline = journal?.leaseTimeline ?? [];
  return {
    schemaVersion: STATUS_SCHEMA_VERSION,
    readAt: new Date(now).toISOString(),
    source,
    where,
    ...(clusterError ? { clusterError } : {}),
    ...(elsewhere ? { elsewhere } : {}),
    ...(journal ? { cluster: journal.cluster } : {}),
    phase: journal ? journalPhase(journal) : { type: 'no-migration' },
    ...(journal ? { next: nextAction(journal) } : {}),
    steps: journal ? stepsOf(journal) : [],
    leases: live.leases,
    ...(live.lock ? { lock: live.lock } : {}),
    timeline: timeline.slice(-50),
    ...(await ownershipOf(journal, timeline, clusterError ? undefined : clusters, now, deps.inference)),
  };
}

/**
 * Judged like the `no-ownership-overlap` and `promise-kept` gates when the cluster can be read (each holder
 * profiled from its pod or the plan's phases); from the local copy, the overlaps by the lease check alone,
 * and the figures by the plan's phases.
 */
async function ownershipOf(
  journal: Journal | undefined,
  timeline: readonly LeaseRecord[],
  clusters: { downstream: ObjectStore; management?: ObjectStore | undefined } | undefined,
  now: number,
  inference: OwnershipInference | undefined,
): Promise<Pick<StatusReport, 'overlaps' | 'controllers'>> {
  if (!journal) return { overlaps: (inference ?? leaseOverlapInference)(timeline), controllers: [] };
  if (!clusters) {
    const evidence: OwnershipEvidence = { now, history: journal };
    return {
      overlaps: (inference ?? leaseOverlapInference)(timeline),
      controllers: promiseRows(promiseFigures(timeline, evidence), plannedNotConfigured(journal.plan)),
    };
  }
  const reader = new KubeGateReader(clusters.downstream, clusters.management);
  const evidence = await readOwnershipEvidence(journal, reader, now);
  return {
    overlaps: (inference ?? ownershipInference)(timeline, evidence),
    controllers: promiseRows(promiseFigures(timeline, evidence), plannedNotConfigured(journal.plan)),
  };
}

async function readLive(
  downstream: ObjectStore,
  journalObjects: ObjectStore,
  location: ReturnType<typeof journalLocationFor>,
  journal: Journal | undefined,
  now: number,
): Promise<{ leases: LeaseHolder[]; lock: StatusReport['lock'] }> {
  const watched = journal
    ? watchedLeases(journal)
    : new Set(['kube-controller-manager', 'cloud-controller-manager', DEFAULT_MIGRATION_LEASE]);
  const leases = (await downstream.list('coordination.k8s.io/v1', 'Lease', { namespace: LEASE_NAMESPACE }))
    .map(leaseFacts)
    .filter((l) => watched.has(l.name))
    .map((l) => {
      const ago = secondsSince(now, l.renewTime);
      return {
        name: l.name,
        holder: l.holderIdentity ?? '',
        ...(ago !== undefined ? { renewedSecondsAgo: ago } : {}),
      };
    });
  const lockLease = await journalObjects.get({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    namespace: location.namespace,
    name: lockNameFor(location),
  });
  const spec = lockLease?.spec as LockLease | undefined;
  let lock: StatusReport['lock'];
  if (spec?.holderIdentity) {
    const decision = decideLock(spec, '', now);
    lock = {
      holder: spec.holderIdentity,
      renewedSecondsAgo: secondsSince(now, spec.renewTime) ?? 0,
      expired: decision.type !== 'held',
    };
  }
  return { leases, lock };
}

/** Reports every `intervalMs` on the clock until `signal` aborts; resolves with the last report. */
export async function watchStatus(
  options: StatusOptions,
  host: RunHost,
  deps: StatusDeps & { readonly intervalMs?: number },
  onReport: (report: StatusReport) => void,
): Promise<StatusReport | undefined> {
  const clock = deps.clock ?? new RealClock();
  // Connect once; every round reads again through the same clients.
  const clusters = (
    deps.connect ??
    kubeconfigConnect({ env: host.env, clock, ...(deps.random ? { random: deps.random } : {}) })
  )(options);
  let last: StatusReport | undefined;
  while (!host.signal?.aborted) {
    try {
      last = await status(options, host, { ...deps, clock, connect: () => clusters });
      onReport(last);
    } catch (error) {
      if (!UprootError.is(error) || error.exitCode === 2) throw error;
      // A transient failure while watching: show it on the next round.
    }
    try {
      await clock.sleep(deps.intervalMs ?? 2_000, host.signal);
    } catch {
      break;
    }
  }
  return last;
}
