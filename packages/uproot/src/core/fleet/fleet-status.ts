/**
 * `uproot fleet status` as data: for each cluster, where its migration stands (from its journal) and, when it
 * runs as a Kubernetes Job, what the Job says; and one verdict from both.
 */

/** A migration Job's state, read from its spec and status as the Job controller writes them. */
export type JobState =
  | { readonly type: 'none' }
  /** spec.suspend: created, waiting for a free slot under --parallel. */
  | { readonly type: 'queued' }
  | { readonly type: 'running'; readonly failedPods: number }
  | { readonly type: 'succeeded' }
  | {
      readonly type: 'failed';
      readonly reason: string;
      readonly message: string;
      readonly failedPods: number;
    };

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * A Job's state. Finished means a true `Complete`/`Failed` condition, or the interim `SuccessCriteriaMet`/
 * `FailureTarget` the controller sets first since Kubernetes 1.31 (kubernetes/kubernetes
 * pkg/controller/job/job_controller.go newSuccessCondition, newFailureCondition).
 */
export function jobStateOf(job: unknown): JobState {
  const status = record(record(job).status);
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(record) : [];
  const isTrue = (type: string) => conditions.find((c) => c.type === type && c.status === 'True');
  const failedPods = typeof status.failed === 'number' ? status.failed : 0;
  const failed = isTrue('Failed') ?? isTrue('FailureTarget');
  if (failed) {
    return {
      type: 'failed',
      reason: typeof failed.reason === 'string' ? failed.reason : '',
      message: typeof failed.message === 'string' ? failed.message : '',
      failedPods,
    };
  }
  if (isTrue('Complete') ?? isTrue('SuccessCriteriaMet')) return { type: 'succeeded' };
  if (record(record(job).spec).suspend === true) return { type: 'queued' };
  return { type: 'running', failedPods };
}

/** Where a cluster's migration stands, from its journal (mapped by the toolkit from the journal's phase). */
export type MigrationProgress =
  | { readonly type: 'no-migration' }
  | { readonly type: 'unreadable'; readonly reason: string }
  | {
      readonly type: 'not-started' | 'completed' | 'rolling-back' | 'rolled-back';
      readonly verified: number;
      readonly total: number;
    }
  | {
      readonly type: 'in-progress';
      readonly step: string;
      readonly state: string;
      readonly verified: number;
      readonly total: number;
      /** The step failed: its code and reason. */
      readonly failure?: { readonly code: string; readonly reason: string };
    };

export type ClusterVerdict =
  'migrated' | 'running' | 'queued' | 'failed' | 'not-started' | 'rolling-back' | 'rolled-back' | 'unknown';

/** One verdict from the journal and the Job: the journal says what was done, the Job whether work goes on. */
export function clusterVerdict(progress: MigrationProgress, job: JobState): ClusterVerdict {
  switch (progress.type) {
    case 'completed':
      return 'migrated';
    case 'rolled-back':
      return 'rolled-back';
    case 'rolling-back':
      return 'rolling-back';
    case 'unreadable':
      return job.type === 'failed' ? 'failed' : 'unknown';
    default:
      break;
  }
  if (job.type === 'failed') return 'failed';
  if (job.type === 'queued') return 'queued';
  if (job.type === 'running') return 'running';
  if (progress.type === 'in-progress') return progress.failure ? 'failed' : 'running';
  return 'not-started';
}

export interface FleetStatusRow {
  readonly cluster: string;
  readonly verdict: ClusterVerdict;
  readonly progress: MigrationProgress;
  readonly job: JobState;
  /** Who holds the cluster's migration lock, when someone does. */
  readonly lockHolder?: string;
}

/** Counts by verdict, in a fixed order, for the status summary line. */
export function verdictCounts(rows: readonly FleetStatusRow[]): Record<ClusterVerdict, number> {
  const counts: Record<ClusterVerdict, number> = {
    migrated: 0,
    running: 0,
    queued: 0,
    failed: 0,
    'not-started': 0,
    'rolling-back': 0,
    'rolled-back': 0,
    unknown: 0,
  };
  for (const r of rows) counts[r.verdict]++;
  return counts;
}

/** The step column of the status table. */
export function describeProgress(progress: MigrationProgress): string {
  switch (progress.type) {
    case 'no-migration':
      return '—';
    case 'unreadable':
      return `journal unreadable: ${progress.reason}`;
    case 'in-progress':
      return `${progress.step} ${progress.state} (${progress.verified}/${progress.total})${progress.failure ? `: ${progress.failure.code}` : ''}`;
    default:
      return `${progress.type} (${progress.verified}/${progress.total})`;
  }
}
