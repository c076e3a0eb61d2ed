import type { Clock } from 'uproot';
import type { EventRecorder } from '../events/event-recorder.js';
import { clone, isRecord, kubeTime, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { controllerQueue, every, type WorkQueue } from '../runtime/work-queue.js';
import { TAINTS, type Taint } from '../scheduling/taints.js';
import type { NodeAgent } from './node-agent.js';
import { unknownConditions } from './node-object.js';

/**
 * All simulated machines together, plus the node-lifecycle duties of the kube-controller-manager that the
 * simulated managers leave out: one heartbeat loop renews every running kubelet's Lease (cheap even for
 * thousands of nodes), nodes whose Lease goes stale for the grace period turn Ready=Unknown with the
 * unreachable taints (event NodeNotReady), and a cordon adds the `node.kubernetes.io/unschedulable` taint
 * (TaintNodesByCondition) that DaemonSet pods tolerate.
 */

export interface NodeFleetOptions {
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly leaseRenewMs: number;
  readonly log: (line: string) => void;
  /** node-monitor-grace-period. */
  readonly gracePeriodMs?: number;
  /** node-monitor-period. */
  readonly monitorPeriodMs?: number;
}

function taintsOf(node: KubeObject): Taint[] {
  const spec = isRecord(node.spec) ? node.spec : {};
  return Array.isArray(spec.taints) ? (spec.taints as Taint[]) : [];
}

function readyStatus(node: KubeObject): string | undefined {
  const status = isRecord(node.status) ? node.status : {};
  const conditions = Array.isArray(status.conditions)
    ? (status.conditions as { type?: string; status?: string }[])
    : [];
  return conditions.find((c) => c.type === 'Ready')?.status;
}

export class NodeFleet {
  private readonly agents: NodeAgent[] = [];
  private readonly byName = new Map<string, NodeAgent>();
  private readonly abort = new AbortController();
  private readonly cordonQueue: WorkQueue<string>;
  private unsubscribe: (() => void) | undefined;
  private loops: Promise<void>[] = [];
  private readonly kubeletStartListeners = new Set<(nodeName: string) => void>();
  /** Nodes whose kubelet cannot reach the API server until a time (a fault: the Lease goes stale). */
  private readonly unreachableUntil = new Map<string, number>();

  constructor(private readonly options: NodeFleetOptions) {
    this.cordonQueue = controllerQueue(
      options.clock,
      'node-lifecycle',
      (name) => this.syncCordonTaint(name),
      options.log,
    );
  }

  get size(): number {
    return this.agents.length;
  }

  all(): readonly NodeAgent[] {
    return this.agents;
  }

  add(agent: NodeAgent): void {
    this.agents.push(agent);
  }

  /** The agent currently registered under a node name (running or not). */
  agentFor(nodeName: string): NodeAgent | undefined {
    const cached = this.byName.get(nodeName);
    if (cached?.nodeName === nodeName) return cached;
    const found = this.agents.find((a) => a.nodeName === nodeName);
    if (found) this.byName.set(nodeName, found);
    return found;
  }

  byMachine(machineName: string): NodeAgent | undefined {
    return this.agents.find((a) => a.instance.machineName === machineName);
  }

  /** Tells listeners that a kubelet (re)started under a name, so pods bound to it are looked at again. */
  kubeletStarted(nodeName: string): void {
    for (const l of this.kubeletStartListeners) l(nodeName);
  }

  /** The node's Lease is not renewed until `untilMs`: the node lifecycle controller marks it NotReady. */
  suspendHeartbeats(nodeName: string, untilMs: number): void {
    this.unreachableUntil.set(nodeName, untilMs);
  }

  onKubeletStart(listener: (nodeName: string) => void): () => void {
    this.kubeletStartListeners.add(listener);
    return () => this.kubeletStartListeners.delete(listener);
  }

  start(): void {
    const { clock, kube, log } = this.options;
    this.unsubscribe = kube.watch(R.nodes, (event) => {
      if (event.type === 'DELETED') return;
      const spec = isRecord(event.object.spec) ? event.object.spec : {};
      const cordoned = spec.unschedulable === true;
      const tainted = taintsOf(event.object).some((t) => t.key === TAINTS.unschedulable);
      if (cordoned !== tainted) this.cordonQueue.add(metaOf(event.object).name ?? '');
    });
    const onError = (error: unknown): void =>
      log(`node fleet: ${error instanceof Error ? error.message : String(error)}`);
    this.loops = [
      every(clock, this.options.leaseRenewMs, this.abort.signal, () => this.renewAll(), onError),
      every(clock, this.options.monitorPeriodMs ?? 5_000, this.abort.signal, () => this.monitor(), onError),
    ];
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.unsubscribe?.();
    this.cordonQueue.close();
    await Promise.all(this.loops);
    await Promise.all(this.agents.map((a) => a.shutdown()));
  }

  private renewAll(): void {
    const now = this.options.clock.now();
    for (const agent of this.agents) {
      if ((this.unreachableUntil.get(agent.nodeName ?? '') ?? 0) > now) continue;
      try {
        agent.heartbeat();
      } catch (error) {
        this.options.log(
          `${agent.instance.machineName}: lease renewal failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  /** The node lifecycle controller's monitor pass: stale leases make nodes Unknown; fresh ones clear it. */
  private monitor(): void {
    const { kube, clock, events } = this.options;
    const now = clock.now();
    const grace = this.options.gracePeriodMs ?? 40_000;
    for (const node of kube.list(R.nodes)) {
      const name = metaOf(node).name ?? '';
      const lease = kube.get(R.leases, 'kube-node-lease', name);
      const renew = Date.parse(String((lease?.spec as { renewTime?: string } | undefined)?.renewTime ?? ''));
      const created = Date.parse(metaOf(node).creationTimestamp ?? '');
      const last = Number.isNaN(renew) ? created : renew;
      const stale = !Number.isNaN(last) && now - last > grace;
      const ready = readyStatus(node);
      const unreachable = taintsOf(node).some((t) => t.key === TAINTS.unreachable);
      if (stale && ready !== 'Unknown') {
        kube.mutateStatus(R.nodes, undefined, name, (draft) => {
          const status = isRecord(draft.status) ? draft.status : {};
          draft.status = { ...status, conditions: unknownConditions(status.conditions, now) };
          return draft;
        });
        this.setUnreachable(name, true);
        events.record(
          { kind: 'Node', name, uid: metaOf(node).uid ?? name },
          'Normal',
          'NodeNotReady',
          `Node ${name} status is now: NodeNotReady`,
          {
            component: 'node-controller',
          },
        );
      } else if (!stale && ready === 'True' && unreachable) {
        this.setUnreachable(name, false);
      } else if (stale && !unreachable) {
        this.setUnreachable(name, true);
      }
    }
  }

  private setUnreachable(name: string, on: boolean): void {
    const now = kubeTime(this.options.clock.now());
    this.options.kube.mutate(R.nodes, undefined, name, (draft) => {
      const spec = isRecord(draft.spec) ? draft.spec : {};
      const rest = taintsOf(draft).filter((t) => t.key !== TAINTS.unreachable);
      const taints = on
        ? [
            ...rest,
            { key: TAINTS.unreachable, effect: 'NoSchedule', timeAdded: now },
            { key: TAINTS.unreachable, effect: 'NoExecute', timeAdded: now },
          ]
        : rest;
      draft.spec = { ...spec, taints };
      if (taints.length === 0) delete (draft.spec as Record<string, unknown>).taints;
      return clone(draft);
    });
  }

  private syncCordonTaint(name: string): void {
    const now = kubeTime(this.options.clock.now());
    this.options.kube.mutate(R.nodes, undefined, name, (draft) => {
      const spec = isRecord(draft.spec) ? draft.spec : {};
      const cordoned = spec.unschedulable === true;
      const taints = taintsOf(draft);
      const has = taints.some((t) => t.key === TAINTS.unschedulable);
      if (cordoned === has) return undefined;
      const next = cordoned
        ? [...taints, { key: TAINTS.unschedulable, effect: 'NoSchedule', timeAdded: now }]
        : taints.filter((t) => t.key !== TAINTS.unschedulable);
      draft.spec = { ...spec, taints: next };
      if (next.length === 0) delete (draft.spec as Record<string, unknown>).taints;
      return draft;
    });
  }
}
