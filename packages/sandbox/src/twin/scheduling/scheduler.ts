import type { Clock } from 'uproot';
import type { EventRecorder } from '../events/event-recorder.js';
import { involvedObjectOf } from '../events/event-recorder.js';
import { isRecord, kubeTime, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { controllerQueue, type WorkQueue } from '../runtime/work-queue.js';
import { canSchedule, type PlacementNode, type PlacementPodSpec } from './placement.js';

/**
 * The default scheduler, reduced to its filters: NodeAffinity (nodeSelector, required affinity, the
 * DaemonSet controller's matchFields pin), NodeUnschedulable and TaintToleration. It binds pending pods to
 * the first node that fits, or leaves them Pending with the upstream FailedScheduling
 * message, and retries them whenever nodes change.
 */
function pinnedNodeName(spec: PlacementPodSpec): string | undefined {
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const fields = terms[0]!.matchFields ?? [];
  const byName = fields.find(
    (f) => f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1,
  );
  return byName?.values?.[0];
}

export class Scheduler {
  private readonly queue: WorkQueue<string>;
  private readonly unschedulable = new Set<string>();
  private readonly unsubscribes: (() => void)[] = [];

  constructor(
    private readonly kube: TwinKube,
    private readonly clock: Clock,
    private readonly events: EventRecorder,
    private readonly log: (line: string) => void,
  ) {
    this.queue = controllerQueue(clock, 'scheduler', (key) => this.schedule(key), log);
  }

  start(): void {
    this.unsubscribes.push(
      this.kube.watch(R.pods, (event) => {
        const key = `${event.namespace}/${metaOf(event.object).name ?? ''}`;
        if (event.type === 'DELETED') {
          this.unschedulable.delete(key);
          return;
        }
        const spec = isRecord(event.object.spec) ? event.object.spec : {};
        if (!spec.nodeName && !metaOf(event.object).deletionTimestamp) this.queue.add(key);
      }),
      this.kube.watch(R.nodes, (event) => {
        if (event.type === 'DELETED') return;
        // A node change can make a pending pod fit; bookkeeping-only changes (status) cannot.
        if (
          event.prev &&
          JSON.stringify(event.prev.spec) === JSON.stringify(event.object.spec) &&
          JSON.stringify(event.prev.metadata?.labels) === JSON.stringify(event.object.metadata?.labels)
        )
          return;
        for (const key of this.unschedulable) this.queue.add(key);
      }),
    );
    // Pods that were there before the scheduler started (a scenario's workloads) are pending too.
    for (const pod of this.kube.list(R.pods)) {
      const spec = isRecord(pod.spec) ? pod.spec : {};
      if (!spec.nodeName) this.queue.add(`${metaOf(pod).namespace ?? ''}/${metaOf(pod).name ?? ''}`);
    }
  }

  stop(): void {
    for (const u of this.unsubscribes) u();
    this.queue.close();
  }

  private schedule(key: string): void {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pod = this.kube.get(R.pods, namespace, name);
    if (!pod) return;
    const spec = (isRecord(pod.spec) ? pod.spec : {}) as PlacementPodSpec & { nodeName?: string };
    if (spec.nodeName || metaOf(pod).deletionTimestamp) {
      this.unschedulable.delete(key);
      return;
    }
    const reasons = new Map<string, number>();
    const fits: PlacementNode[] = [];
    // A pod pinned to one node by name (DaemonSet pods) fits no other: look only at that one, by key, so
    // scheduling a node's daemon pods costs the same at 5,000 nodes as at 10 (issue 29; upstream's
    // NodeAffinity PreFilter narrows a matchFields metadata.name pin to that node the same way:
    // kubernetes pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go PreFilter).
    const pinned = pinnedNodeName(spec);
    const nodeCount = this.kube.store.count(R.nodes);
    const pinnedNode = pinned === undefined ? undefined : this.kube.get(R.nodes, undefined, pinned);
    const candidates = (pinned === undefined
      ? this.kube.list(R.nodes)
      : pinnedNode
        ? [pinnedNode]
        : []) as unknown as (PlacementNode & KubeObject)[];
    if (pinned !== undefined && nodeCount > candidates.length) {
      reasons.set("node(s) didn't match Pod's node affinity/selector", nodeCount - candidates.length);
    }
    for (const node of candidates) {
      const result = canSchedule(spec, node);
      if (result.fits) fits.push(node);
      else reasons.set(result.reason, (reasons.get(result.reason) ?? 0) + 1);
    }
    if (fits.length === 0) {
      this.unschedulable.add(key);
      const summary = [...reasons.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([reason, count]) => `${count} ${reason}`)
        .join(', ');
      const message = `0/${nodeCount} nodes are available: ${summary || 'no nodes available to schedule pods'}. preemption: 0/${nodeCount} nodes are available: ${nodeCount} Preemption is not helpful for scheduling.`;
      this.kube.mutateStatus(R.pods, namespace, name, (draft) => {
        const status = isRecord(draft.status) ? draft.status : {};
        const conditions = Array.isArray(status.conditions)
          ? (status.conditions as { type?: string; message?: string }[])
          : [];
        if (conditions.some((c) => c.type === 'PodScheduled' && c.message === message)) return undefined;
        draft.status = {
          ...status,
          phase: 'Pending',
          conditions: [
            ...conditions.filter((c) => c.type !== 'PodScheduled'),
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message,
              lastProbeTime: null,
              lastTransitionTime: kubeTime(this.clock.now()),
            },
          ],
        };
        return draft;
      });
      this.events.record(involvedObjectOf(pod), 'Warning', 'FailedScheduling', message, {
        component: 'default-scheduler',
      });
      return;
    }
    this.unschedulable.delete(key);
    const target = fits[0]!.metadata.name;
    this.kube.mutate(R.pods, namespace, name, (draft) => {
      const s = isRecord(draft.spec) ? draft.spec : {};
      if (s.nodeName) return undefined;
      draft.spec = { ...s, nodeName: target };
      return draft;
    });
    this.events.record(
      involvedObjectOf(pod),
      'Normal',
      'Scheduled',
      `Successfully assigned ${namespace}/${name} to ${target}`,
      {
        component: 'default-scheduler',
      },
    );
  }
}
