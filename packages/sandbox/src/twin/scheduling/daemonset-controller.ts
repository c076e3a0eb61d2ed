import { createHash } from 'node:crypto';
import type { Clock } from 'uproot';
import type { EventRecorder } from '../events/event-recorder.js';
import { involvedObjectOf } from '../events/event-recorder.js';
import { clone, isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { isPodReady } from '../nodes/pod-status.js';
import { controllerQueue, type WorkQueue } from '../runtime/work-queue.js';
import { withDaemonPodTolerations } from './daemon-pod-tolerations.js';
import { canKeepRunning, canSchedule, type PlacementNode, type PlacementPodSpec } from './placement.js';
import type { Toleration } from './taints.js';

/**
 * The DaemonSet controller (pkg/controller/daemon): one pod per node that should run it (selection and
 * taints, with the tolerations every daemon pod gets), pods pinned by a matchFields node affinity for the
 * scheduler to bind, a RollingUpdate that replaces old pods at most `maxUnavailable` at a time, and the
 * status fields `kubectl rollout status` reads.
 */

const DS_SOURCE = { component: 'daemonset-controller' };

export function templateHash(template: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest('hex')
    .slice(0, 10);
}

function pinnedNode(pod: KubeObject): string | undefined {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  if (typeof spec.nodeName === 'string' && spec.nodeName) return spec.nodeName;
  const terms =
    (spec as PlacementPodSpec).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [];
  for (const t of terms)
    for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.values?.[0]) return f.values[0];
  return undefined;
}

function ownedBy(pod: KubeObject, uid: string): boolean {
  return (metaOf(pod).ownerReferences ?? []).some((o) => o.uid === uid && o.controller === true);
}

function maxUnavailable(ds: KubeObject, desired: number): number {
  const spec = isRecord(ds.spec) ? ds.spec : {};
  const strategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {};
  const rolling = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const raw = rolling.maxUnavailable ?? 1;
  if (typeof raw === 'number') return Math.max(0, raw);
  const m = /^(\d+)%$/.exec(String(raw));
  // Upstream rounds a percentage up for maxUnavailable's scaled value, with at least one when maxSurge is 0.
  return m ? Math.max(1, Math.ceil((Number(m[1]) / 100) * desired)) : 1;
}

export class DaemonSetController {
  private readonly queue: WorkQueue<string>;
  private readonly unsubscribes: (() => void)[] = [];

  constructor(
    private readonly kube: TwinKube,
    clock: Clock,
    private readonly events: EventRecorder,
    log: (line: string) => void,
  ) {
    this.queue = controllerQueue(clock, 'daemonset-controller', (key) => this.reconcile(key), log);
  }

  start(): void {
    const all = (): void => {
      for (const ds of this.kube.list(R.daemonsets))
        this.queue.add(`${metaOf(ds).namespace}/${metaOf(ds).name}`);
    };
    this.unsubscribes.push(
      this.kube.watch(R.daemonsets, (event) => {
        const key = `${event.namespace}/${metaOf(event.object).name ?? ''}`;
        if (event.type === 'DELETED')
          this.queue.add(`deleted:${metaOf(event.object).uid ?? ''}:${event.namespace}`);
        else this.queue.add(key);
      }),
      this.kube.watch(R.nodes, (event) => {
        const before = event.prev;
        if (
          before &&
          JSON.stringify(before.spec) === JSON.stringify(event.object.spec) &&
          JSON.stringify(before.metadata?.labels) === JSON.stringify(event.object.metadata?.labels)
        )
          return;
        all();
      }),
      this.kube.watch(R.pods, (event) => {
        for (const o of metaOf(event.object).ownerReferences ?? []) {
          if (o.kind === 'DaemonSet' && o.controller) this.queue.add(`${event.namespace}/${o.name}`);
        }
      }),
    );
    all();
  }

  stop(): void {
    for (const u of this.unsubscribes) u();
    this.queue.close();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private reconcile(key: string): void {
    if (key.startsWith('deleted:')) {
      // The garbage collector's part: pods of a deleted DaemonSet go with it.
      const [, uid, namespace] = key.split(':');
      for (const pod of this.kube.list(R.pods, { namespace: namespace ?? '' })) {
        if (ownedBy(pod, uid ?? '')) this.kube.delete(R.pods, namespace, metaOf(pod).name ?? '');
      }
      return;
    }
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const ds = this.kube.get(R.daemonsets, namespace, name);
    if (!ds || metaOf(ds).deletionTimestamp) return;
    const uid = metaOf(ds).uid ?? '';
    const spec = isRecord(ds.spec) ? ds.spec : {};
    const template = isRecord(spec.template) ? spec.template : {};
    const podSpec = (isRecord(template.spec) ? template.spec : {}) as Record<string, unknown>;
    const hash = templateHash(template);
    const generation = metaOf(ds).generation ?? 1;
    const hostNetwork = podSpec.hostNetwork === true;
    const placementSpec: PlacementPodSpec = {
      ...(podSpec as PlacementPodSpec),
      tolerations: withDaemonPodTolerations(
        (podSpec.tolerations as Toleration[] | undefined) ?? [],
        hostNetwork,
      ),
    };
    const nodes = this.kube.list(R.nodes) as unknown as (PlacementNode & KubeObject)[];
    const pods = this.kube
      .list(R.pods, { namespace })
      .filter((p) => ownedBy(p, uid) && !metaOf(p).deletionTimestamp);
    const byNode = new Map<string, KubeObject[]>();
    for (const pod of pods) {
      const node = pinnedNode(pod) ?? '';
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    const live: KubeObject[] = [];
    for (const node of nodes) {
      const nodeName = node.metadata.name;
      const onNode = byNode.get(nodeName) ?? [];
      byNode.delete(nodeName);
      const shouldRun = canSchedule(placementSpec, node).fits;
      const keep = canKeepRunning(placementSpec, node).fits;
      if (shouldRun) desired++;
      if (onNode.length === 0) {
        if (shouldRun)
          this.createPod(ds, template, podSpec, nodeName, hash, generation, placementSpec.tolerations ?? []);
        continue;
      }
      if (!keep) {
        for (const pod of onNode) this.deletePod(ds, pod);
        continue;
      }
      if (shouldRun) current++;
      else misscheduled++;
      // Keep the newest-template pod when a node somehow has several.
      const sorted = [...onNode].sort(
        (a, b) =>
          Number(metaOf(b).labels?.['controller-revision-hash'] === hash) -
          Number(metaOf(a).labels?.['controller-revision-hash'] === hash),
      );
      live.push(sorted[0]!);
      for (const extra of sorted.slice(1)) this.deletePod(ds, extra);
    }
    for (const orphans of byNode.values()) for (const pod of orphans) this.deletePod(ds, pod);

    const ready = live.filter(isPodReady);
    const updated = live.filter((p) => metaOf(p).labels?.['controller-revision-hash'] === hash);
    const strategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {};
    if ((strategy.type ?? 'RollingUpdate') === 'RollingUpdate') {
      const old = live.filter((p) => metaOf(p).labels?.['controller-revision-hash'] !== hash);
      const unavailable = desired - ready.length;
      // Old pods that are not ready go at once; ready ones only within the maxUnavailable budget.
      let budget = maxUnavailable(ds, desired) - Math.max(0, unavailable);
      for (const pod of old.filter((p) => !isPodReady(p))) this.deletePod(ds, pod);
      for (const pod of old.filter(isPodReady)) {
        if (budget <= 0) break;
        this.deletePod(ds, pod);
        budget--;
      }
    }
    const status = {
      currentNumberScheduled: current,
      desiredNumberScheduled: desired,
      numberMisscheduled: misscheduled,
      numberReady: ready.length,
      numberAvailable: ready.length,
      numberUnavailable: Math.max(0, desired - ready.length),
      updatedNumberScheduled: updated.length,
      observedGeneration: generation,
    };
    this.kube.mutateStatus(R.daemonsets, namespace, name, (draft) => {
      const previous = isRecord(draft.status) ? draft.status : {};
      const next: Record<string, unknown> = { ...status };
      if (next.numberUnavailable === 0) delete next.numberUnavailable;
      if (JSON.stringify(Object.entries(previous).sort()) === JSON.stringify(Object.entries(next).sort()))
        return undefined;
      draft.status = next;
      return draft;
    });
  }

  private createPod(
    ds: KubeObject,
    template: Record<string, unknown>,
    podSpec: Record<string, unknown>,
    nodeName: string,
    hash: string,
    generation: number,
    tolerations: readonly Toleration[],
  ): void {
    const meta = metaOf(ds);
    const templateMeta = isRecord(template.metadata) ? template.metadata : {};
    const spec = clone(podSpec);
    const affinity = isRecord(spec.affinity) ? spec.affinity : {};
    const nodeAffinity = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
    spec.affinity = {
      ...affinity,
      nodeAffinity: {
        ...nodeAffinity,
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] },
          ],
        },
      },
    };
    spec.tolerations = [...tolerations];
    spec.schedulerName ??= 'default-scheduler';
    spec.restartPolicy ??= 'Always';
    const created = this.kube.create(R.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${meta.name}-`,
        namespace: meta.namespace,
        labels: {
          ...((templateMeta.labels as Record<string, string> | undefined) ?? {}),
          'controller-revision-hash': hash,
          'pod-template-generation': String(generation),
        },
        ...(isRecord(templateMeta.annotations)
          ? { annotations: templateMeta.annotations as Record<string, string> }
          : {}),
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: meta.name ?? '',
            uid: meta.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec,
    });
    this.events.record(
      involvedObjectOf(ds),
      'Normal',
      'SuccessfulCreate',
      `Created pod: ${metaOf(created).name}`,
      DS_SOURCE,
    );
  }

  private deletePod(ds: KubeObject, pod: KubeObject): void {
    const name = metaOf(pod).name ?? '';
    if (this.kube.delete(R.pods, metaOf(pod).namespace, name)) {
      this.events.record(
        involvedObjectOf(ds),
        'Normal',
        'SuccessfulDelete',
        `Deleted pod: ${name}`,
        DS_SOURCE,
      );
    }
  }
}
