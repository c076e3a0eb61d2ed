/**
 * The Job controller of the twin's local cluster: for each batch/v1 Job it keeps one pod (a local process
 * running the uproot CLI, pod-processes.ts), replaces a pod that failed after the backoff, counts pods as they
 * end, and writes the Job's status and conditions as Kubernetes does (the decision is job-sync.ts). A pod
 * deleted through the API is stopped (SIGTERM, then SIGKILL after its grace period) and counted as failed.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Clock } from 'uproot';
import { isRecord, metaOf, type KubeObject } from '../../twin/kube/kube-types.js';
import { R, type TwinKube } from '../../twin/kube/twin-kube.js';
import { WorkQueue } from '../../twin/runtime/work-queue.js';
import type { PodExit, PodProcesses } from './pod-processes.js';
import { syncJob, TRACKING_FINALIZER, type PodView } from './job-sync.js';

const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const JOB_NAME = 'batch.kubernetes.io/job-name';
const iso = (ms: number): string => new Date(ms).toISOString();

export interface JobControllerOptions {
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly pods: PodProcesses;
  readonly log: (line: string) => void;
}

export class JobController {
  private readonly queue: WorkQueue<string>;
  private readonly stop = new AbortController();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly exits = new Set<Promise<void>>();
  /** When each Job's next timed sync is due (like the workqueue's AddAfter: one pending per key). */
  private readonly requeues = new Map<string, number>();

  constructor(private readonly options: JobControllerOptions) {
    // One timed sync per Job waits on this signal (a fleet has more Jobs than the default warning threshold).
    setMaxListeners(0, this.stop.signal);
    this.queue = new WorkQueue(
      options.clock,
      (key) => this.reconcile(key),
      (key, error) =>
        options.log(`job controller: ${key}: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  start(): void {
    const { kube } = this.options;
    this.unsubscribe.push(
      kube.watch(R.jobs, (e) => this.queue.add(`${e.namespace}/${metaOf(e.object).name}`)),
      kube.watch(R.pods, (e) => {
        const owner = ownerJob(e.object);
        if (owner) this.queue.add(`${e.namespace}/${owner}`);
        if (e.type !== 'DELETED' && metaOf(e.object).deletionTimestamp) this.terminate(e.object);
      }),
    );
    for (const job of kube.list(R.jobs)) this.queue.add(`${metaOf(job).namespace}/${metaOf(job).name}`);
  }

  async close(): Promise<void> {
    this.stop.abort();
    for (const u of this.unsubscribe.splice(0)) u();
    this.queue.close();
    for (const pod of this.options.pods.all()) pod.kill('SIGKILL');
    await Promise.all(this.exits);
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private podsOf(job: KubeObject): KubeObject[] {
    const uid = metaOf(job).uid;
    return this.options.kube.list(R.pods, {
      namespace: metaOf(job).namespace ?? '',
      labelSelector: `${CONTROLLER_UID}=${uid}`,
    });
  }

  private reconcile(key: string): void {
    const [namespace, name] = key.split('/') as [string, string];
    const { kube, clock } = this.options;
    const job = kube.get(R.jobs, namespace, name);
    if (!job) return;
    const pods = this.podsOf(job);
    const decision = syncJob(job, pods.map(viewOf), clock.now());
    kube.mutateStatus(R.jobs, namespace, name, (draft) => {
      if (JSON.stringify(draft.status ?? {}) === JSON.stringify(decision.status)) return undefined;
      draft.status = decision.status;
      return draft;
    });
    for (const podName of decision.uncount)
      kube.mutate(R.pods, namespace, podName, (draft) => {
        const finalizers = (metaOf(draft).finalizers ?? []).filter((f) => f !== TRACKING_FINALIZER);
        draft.metadata = { ...metaOf(draft), finalizers };
        return draft;
      });
    for (const podName of decision.deletePods) kube.delete(R.pods, namespace, podName);
    if (decision.createPod) this.createPod(job);
    if (decision.requeueAfterMs !== undefined) this.requeueAfter(key, decision.requeueAfterMs);
  }

  private requeueAfter(key: string, ms: number): void {
    const due = this.options.clock.now() + ms;
    const pending = this.requeues.get(key);
    if (pending !== undefined && pending <= due) return;
    this.requeues.set(key, due);
    this.options.clock.sleep(ms, this.stop.signal).then(
      () => {
        if (this.requeues.get(key) === due) this.requeues.delete(key);
        this.queue.add(key);
      },
      () => undefined,
    );
  }

  private createPod(job: KubeObject): void {
    const meta = metaOf(job);
    const template = isRecord(job.spec) && isRecord(job.spec.template) ? job.spec.template : {};
    const templateMeta = isRecord(template.metadata) ? template.metadata : {};
    const suffix = randomBytes(3).toString('hex').slice(0, 5);
    const pod = this.options.kube.create(R.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${meta.name}-${suffix}`,
        namespace: meta.namespace,
        labels: {
          ...(isRecord(templateMeta.labels) ? (templateMeta.labels as Record<string, string>) : {}),
          [CONTROLLER_UID]: meta.uid ?? '',
          [JOB_NAME]: meta.name ?? '',
          'controller-uid': meta.uid ?? '',
          'job-name': meta.name ?? '',
        },
        finalizers: [TRACKING_FINALIZER],
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: meta.name ?? '',
            uid: meta.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: isRecord(template.spec) ? template.spec : {},
    });
    const running = this.options.pods.start(pod);
    this.setPodStatus(pod, {
      phase: 'Running',
      startTime: iso(this.options.clock.now()),
      conditions: [{ type: 'Ready', status: 'True' }],
    });
    const exit = running.exited.then((e) => this.podExited(pod, e));
    this.exits.add(exit);
    void exit.finally(() => this.exits.delete(exit));
  }

  private podExited(pod: KubeObject, exit: PodExit): void {
    if (this.stop.signal.aborted) return;
    const now = iso(this.options.clock.now());
    this.options.log(`pod ${metaOf(pod).namespace}/${metaOf(pod).name}: exited ${exit.exitCode}`);
    this.setPodStatus(pod, {
      phase: exit.exitCode === 0 ? 'Succeeded' : 'Failed',
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: [
        {
          name: 'migrate',
          ready: false,
          restartCount: 0,
          state: {
            terminated: {
              exitCode: exit.exitCode,
              reason: exit.reason,
              ...(exit.signal ? { signal: exit.signal } : {}),
              ...(exit.message ? { message: exit.message } : {}),
              finishedAt: now,
            },
          },
        },
      ],
    });
  }

  private setPodStatus(pod: KubeObject, status: Record<string, unknown>): void {
    const meta = metaOf(pod);
    this.options.kube.mutateStatus(R.pods, meta.namespace, meta.name ?? '', (draft) => {
      draft.status = { ...(isRecord(draft.status) ? draft.status : {}), ...status };
      return draft;
    });
  }

  /** A pod deleted through the API: SIGTERM now, SIGKILL after terminationGracePeriodSeconds (default 30). */
  private terminate(pod: KubeObject): void {
    const meta = metaOf(pod);
    const running = this.options.pods.get(meta.namespace ?? '', meta.name ?? '');
    if (!running) return;
    running.kill('SIGTERM');
    const grace =
      isRecord(pod.spec) && typeof pod.spec.terminationGracePeriodSeconds === 'number'
        ? pod.spec.terminationGracePeriodSeconds
        : 30;
    this.options.clock.sleep(grace * 1000, this.stop.signal).then(
      () => running.kill('SIGKILL'),
      () => undefined,
    );
  }
}

function ownerJob(pod: KubeObject): string | undefined {
  const refs = metaOf(pod).ownerReferences;
  const owner = Array.isArray(refs) ? refs.find((r) => isRecord(r) && r.kind === 'Job') : undefined;
  return isRecord(owner) && typeof owner.name === 'string' ? owner.name : undefined;
}

function viewOf(pod: KubeObject): PodView {
  const meta = metaOf(pod);
  const status = isRecord(pod.status) ? pod.status : {};
  const phase = (typeof status.phase === 'string' ? status.phase : 'Pending') as PodView['phase'];
  const terminated = Array.isArray(status.containerStatuses)
    ? (status.containerStatuses as Record<string, unknown>[]).map((c) =>
        isRecord(c.state) && isRecord(c.state.terminated) ? c.state.terminated : undefined,
      )[0]
    : undefined;
  return {
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    phase,
    terminating: Boolean(meta.deletionTimestamp),
    tracked: (meta.finalizers ?? []).includes(TRACKING_FINALIZER),
    ...(typeof terminated?.exitCode === 'number' ? { exitCode: terminated.exitCode } : {}),
    ...(typeof terminated?.finishedAt === 'string' ? { finishedAt: Date.parse(terminated.finishedAt) } : {}),
  };
}
