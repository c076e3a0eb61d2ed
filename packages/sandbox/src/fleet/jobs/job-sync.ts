/**
 * One sync of a Job, decided purely from the Job and its pods (what the Kubernetes Job controller's syncJob
 * does for a non-indexed Job with completions 1 and parallelism 1, kubernetes/kubernetes
 * pkg/controller/job/job_controller.go at 6ae037f1): count terminated pods into status.succeeded/failed as
 * their tracking finalizer is removed, judge podFailurePolicy (pod_failure_policy.go), backoffLimit and
 * activeDeadlineSeconds, then either finish (the interim FailureTarget/SuccessCriteriaMet condition, then
 * Failed/Complete once no pod is active, as with the JobManagedBy/JobPodReplacementPolicy gates on since 1.31),
 * suspend (delete active pods, condition Suspended), or make the next pod after the failure backoff
 * (10 s doubling per failure up to 10 min: DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff).
 */
import { isRecord, type KubeObject } from '../../twin/kube/kube-types.js';

export const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
const BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 10 * 60_000;

export interface PodView {
  readonly name: string;
  readonly uid: string;
  readonly phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  /** Deleted (deletionTimestamp set) but not yet gone: terminating. */
  readonly terminating: boolean;
  readonly tracked: boolean;
  readonly exitCode?: number;
  readonly finishedAt?: number;
}

export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason?: string;
  readonly message?: string;
  readonly lastProbeTime: string;
  readonly lastTransitionTime: string;
}

export interface JobSync {
  /** The status to write (undefined: unchanged). */
  readonly status: Record<string, unknown>;
  /** Pods whose tracking finalizer comes off now (they were counted). */
  readonly uncount: readonly string[];
  /** Active pods to delete (the Job finished or is suspended). */
  readonly deletePods: readonly string[];
  readonly createPod: boolean;
  /** Sync again after this long (backoff, deadline). */
  readonly requeueAfterMs?: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);

function conditionsOf(status: Record<string, unknown>): Condition[] {
  return Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
}

function setCondition(
  list: Condition[],
  type: string,
  status: 'True' | 'False',
  now: number,
  reason?: string,
  message?: string,
): Condition[] {
  const existing = list.find((c) => c.type === type);
  if (existing && existing.status === status) return list;
  const next: Condition = {
    type,
    status,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    lastProbeTime: iso(now),
    lastTransitionTime: iso(now),
  };
  return existing ? list.map((c) => (c.type === type ? next : c)) : [...list, next];
}

const isTrue = (list: Condition[], type: string) => list.some((c) => c.type === type && c.status === 'True');

/** podFailurePolicy's verdict on one failed pod: FailJob (with upstream's message), Ignore, or Count. */
export function matchPodFailurePolicy(
  job: KubeObject,
  pod: PodView,
  container: string,
  namespace: string,
): { readonly action: 'FailJob' | 'Ignore' | 'Count'; readonly message?: string } {
  const policy =
    isRecord(job.spec) && isRecord(job.spec.podFailurePolicy) ? job.spec.podFailurePolicy : undefined;
  const rules = Array.isArray(policy?.rules) ? policy.rules.filter(isRecord) : [];
  for (const [index, rule] of rules.entries()) {
    const on = isRecord(rule.onExitCodes) ? rule.onExitCodes : undefined;
    // onPodConditions (DisruptionTarget) never matches: the sandbox evicts no pod.
    if (!on || pod.exitCode === undefined || pod.exitCode === 0) continue;
    if (typeof on.containerName === 'string' && on.containerName !== container) continue;
    const values = Array.isArray(on.values) ? on.values : [];
    const hit = values.includes(pod.exitCode);
    if (on.operator === 'In' ? !hit : hit) continue;
    const action = rule.action === 'FailJob' || rule.action === 'Ignore' ? rule.action : 'Count';
    return action === 'FailJob'
      ? {
          action,
          message: `Container ${container} for pod ${namespace}/${pod.name} failed with exit code ${pod.exitCode} matching FailJob rule at index ${index}`,
        }
      : { action };
  }
  return { action: 'Count' };
}

export function syncJob(job: KubeObject, pods: readonly PodView[], now: number): JobSync {
  const spec = isRecord(job.spec) ? job.spec : {};
  const status: Record<string, unknown> = { ...(isRecord(job.status) ? job.status : {}) };
  let conditions = conditionsOf(status);
  const namespace = job.metadata?.namespace ?? '';
  const container = containerName(spec);
  const suspended = spec.suspend === true;
  const active = pods.filter((p) => !p.terminating && (p.phase === 'Pending' || p.phase === 'Running'));
  const terminating = pods.filter((p) => p.terminating && (p.phase === 'Pending' || p.phase === 'Running'));

  const { uncount, succeeded, failed, failJob } = countTerminated(job, pods, status, container, namespace);
  status.succeeded = succeeded;
  status.failed = failed;
  status.terminating = terminating.length;

  if (!status.startTime && !suspended) status.startTime = iso(now);
  const finished = isTrue(conditions, 'Complete') || isTrue(conditions, 'Failed');
  let requeueAfterMs: number | undefined;
  let failure: { reason: string; message: string } | undefined;
  const target = conditions.find((c) => c.type === 'FailureTarget' && c.status === 'True');
  if (finished) {
    // Nothing more to do for a finished Job.
  } else if (target) failure = { reason: target.reason ?? '', message: target.message ?? '' };
  else if (failJob) failure = { reason: 'PodFailurePolicy', message: failJob };
  else if (failed > num(spec.backoffLimit, 6))
    failure = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  else if (typeof spec.activeDeadlineSeconds === 'number' && !suspended && status.startTime) {
    const left = Date.parse(String(status.startTime)) + spec.activeDeadlineSeconds * 1000 - now;
    if (left <= 0)
      failure = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    else requeueAfterMs = left;
  }

  let deletePods: string[] = [];
  let createPod = false;
  if (finished) {
    deletePods = active.map((p) => p.name);
  } else if (failure) {
    conditions = setCondition(conditions, 'FailureTarget', 'True', now, failure.reason, failure.message);
    deletePods = active.map((p) => p.name);
    if (active.length === 0 && terminating.length === 0)
      conditions = setCondition(conditions, 'Failed', 'True', now, failure.reason, failure.message);
  } else if (suspended) {
    deletePods = active.map((p) => p.name);
    conditions = setCondition(conditions, 'Suspended', 'True', now, 'JobSuspended', 'Job suspended');
  } else {
    if (isTrue(conditions, 'Suspended')) {
      conditions = setCondition(conditions, 'Suspended', 'False', now, 'JobResumed', 'Job resumed');
      // A resumed Job's activeDeadlineSeconds counts from now (upstream resets StartTime).
      status.startTime = iso(now);
    }
    if (succeeded >= 1 && active.length === 0) {
      conditions = setCondition(conditions, 'SuccessCriteriaMet', 'True', now);
      conditions = setCondition(conditions, 'Complete', 'True', now);
      status.completionTime = iso(now);
    } else if (succeeded === 0 && active.length === 0 && terminating.length === 0) {
      const wait = backoffLeft(pods, failed, now);
      if (wait <= 0) createPod = true;
      else requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
    }
  }
  status.active = active.length - (deletePods.length > 0 ? deletePods.length : 0) + (createPod ? 1 : 0);
  status.ready = active.filter((p) => p.phase === 'Running' && !deletePods.includes(p.name)).length;
  status.conditions = conditions;
  status.uncountedTerminatedPods = {};
  return {
    status,
    uncount,
    deletePods,
    createPod,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}

/** Counts what terminated (a pod deleted while it ran is failed once it stops), to remove its finalizer. */
function countTerminated(
  job: KubeObject,
  pods: readonly PodView[],
  status: Record<string, unknown>,
  container: string,
  namespace: string,
): { uncount: string[]; succeeded: number; failed: number; failJob: string | undefined } {
  const uncount: string[] = [];
  let succeeded = num(status.succeeded, 0);
  let failed = num(status.failed, 0);
  let failJob: string | undefined;
  for (const pod of pods) {
    if (!pod.tracked || (pod.phase !== 'Succeeded' && pod.phase !== 'Failed')) continue;
    uncount.push(pod.name);
    if (pod.phase === 'Succeeded') {
      succeeded++;
      continue;
    }
    const verdict = matchPodFailurePolicy(job, pod, container, namespace);
    if (verdict.action === 'Ignore') continue;
    failed++;
    if (verdict.action === 'FailJob') failJob ??= verdict.message;
  }
  return { uncount, succeeded, failed, failJob };
}

function containerName(spec: Record<string, unknown>): string {
  const template = isRecord(spec.template) && isRecord(spec.template.spec) ? spec.template.spec : {};
  const first =
    Array.isArray(template.containers) && isRecord(template.containers[0]) ? template.containers[0] : {};
  return typeof first.name === 'string' ? first.name : '';
}

/** How long until the next pod may start: 10 s × 2^(failures-1) after the last failure, at most 10 min. */
function backoffLeft(pods: readonly PodView[], failed: number, now: number): number {
  if (failed === 0) return 0;
  const last = Math.max(0, ...pods.filter((p) => p.phase === 'Failed').map((p) => p.finishedAt ?? 0));
  const delay = Math.min(BACKOFF_MS * 2 ** (failed - 1), MAX_BACKOFF_MS);
  return last + delay - now;
}
