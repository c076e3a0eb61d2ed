import type { Clock } from 'uproot';
import { kubeTimestamp } from '../../apiserver/kube-object.js';
import {
  budgetCovers,
  conditionsUpToDate,
  countHealthy,
  disruptionsAllowed,
  expectedPodCount,
  liveDisruptedPods,
  podsForBudget,
  statusOf,
  withDisruptionAllowedCondition,
  type ControllerRef,
  type PdbStatus,
  type ScaleLookup,
} from '../../apiserver/policy/disruption-budget.js';
import { type EventRecorder, involvedObjectOf } from '../events/event-recorder.js';
import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { controllerQueue, type WorkQueue } from '../runtime/work-queue.js';

/**
 * The disruption controller (kubernetes pkg/controller/disruption/disruption.go): keeps each
 * PodDisruptionBudget's status (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed,
 * disruptedPods, observedGeneration, the DisruptionAllowed condition) as trySync / updatePdbStatus compute
 * it, on a failure writes failSafe's zero, and looks again when an approved eviction's DeletionTimeout ends.
 * A pod event costs a map lookup unless its namespace has a budget (a 5,000-node twin usually has none).
 */

const SOURCE = { component: 'controllermanager' };

export class DisruptionController {
  private readonly queue: WorkQueue<string>;
  private readonly unsubscribes: (() => void)[] = [];
  /** Budget names by namespace, from the watch (the pdb lister's index). */
  private readonly budgets = new Map<string, Set<string>>();

  constructor(
    private readonly kube: TwinKube,
    private readonly clock: Clock,
    private readonly events: EventRecorder,
    log: (line: string) => void,
  ) {
    this.queue = controllerQueue(clock, 'disruption-controller', (key) => this.sync(key), log);
  }

  start(): void {
    this.unsubscribes.push(
      this.kube.watch(R.poddisruptionbudgets, (event) => {
        const name = metaOf(event.object).name ?? '';
        const names = this.budgets.get(event.namespace) ?? new Set<string>();
        if (event.type === 'DELETED') names.delete(name);
        else names.add(name);
        if (names.size > 0) this.budgets.set(event.namespace, names);
        else this.budgets.delete(event.namespace);
        if (event.type !== 'DELETED') this.queue.add(`${event.namespace}/${name}`);
      }),
      this.kube.watch(R.pods, (event) => {
        // addPod / updatePod / deletePod: the budgets covering the pod (before or after the change).
        const names = this.budgets.get(event.namespace);
        if (!names) return;
        for (const name of names) {
          const pdb = this.kube.get(R.poddisruptionbudgets, event.namespace, name);
          if (!pdb) continue;
          if (budgetCovers(pdb, event.object) || (event.prev && budgetCovers(pdb, event.prev)))
            this.queue.add(`${event.namespace}/${name}`);
        }
      }),
    );
    for (const pdb of this.kube.list(R.poddisruptionbudgets)) {
      const { namespace = '', name = '' } = metaOf(pdb);
      this.budgets.set(namespace, (this.budgets.get(namespace) ?? new Set()).add(name));
      this.queue.add(`${namespace}/${name}`);
    }
  }

  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
    this.queue.close();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** disruption.go sync → trySync, failSafe on an error. */
  private sync(key: string): void {
    const slash = key.indexOf('/');
    const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
    const pdb = this.kube.get(R.poddisruptionbudgets, namespace, name);
    if (!pdb) return;
    const now = this.clock.now();
    const pods = podsForBudget(
      pdb,
      this.kube.list(R.pods, { namespace }).filter((p) => metaOf(p).namespace === namespace),
    );
    if (pods.length === 0) this.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
    const counted = expectedPodCount(pdb, pods, (ref, ns) => this.scaleOf(ref, ns));
    if (!counted.ok) {
      this.event(
        pdb,
        'Warning',
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${counted.error}`,
      );
      this.write(pdb, (status) =>
        withDisruptionAllowedCondition({ ...status, disruptionsAllowed: 0 }, kubeTimestamp(now), {
          reason: 'SyncFailed',
          message: counted.error,
        }),
      );
      return;
    }
    if (counted.unmanaged.length > 0) this.unmanagedEvent(pdb);
    const disrupted = liveDisruptedPods(statusOf(pdb).disruptedPods, pods, now);
    const healthy = countHealthy(pods, disrupted.pods, now);
    const generation = metaOf(pdb).generation ?? 0;
    const current = statusOf(pdb);
    const next: PdbStatus = {
      currentHealthy: healthy,
      desiredHealthy: counted.desired,
      expectedPods: counted.expected,
      disruptionsAllowed: disruptionsAllowed(healthy, counted.desired, counted.expected),
      ...(Object.keys(disrupted.pods).length > 0 ? { disruptedPods: disrupted.pods } : {}),
      observedGeneration: generation,
      ...(current.conditions ? { conditions: current.conditions } : {}),
    };
    const unchanged =
      current.currentHealthy === next.currentHealthy &&
      current.desiredHealthy === next.desiredHealthy &&
      current.expectedPods === next.expectedPods &&
      current.disruptionsAllowed === next.disruptionsAllowed &&
      JSON.stringify(current.disruptedPods ?? {}) === JSON.stringify(next.disruptedPods ?? {}) &&
      current.observedGeneration === generation &&
      conditionsUpToDate(current, generation);
    if (!unchanged) this.write(pdb, () => withDisruptionAllowedCondition(next, kubeTimestamp(now)));
    // enqueuePdbForRecheck: when the earliest approved eviction's DeletionTimeout runs out.
    if (disrupted.recheckAt !== undefined)
      void this.clock.sleep(Math.max(0, disrupted.recheckAt - now) + 1).then(() => this.queue.add(key));
  }

  /**
   * A pod's controller and its scale: disruption.go finders. The twin serves no ReplicaSets, StatefulSets
   * or ReplicationControllers, so every controller goes through getScaleController: its kind's REST
   * mapping, its scale subresource (spec.replicas), its UID checked against the reference.
   */
  private scaleOf(ref: ControllerRef, namespace: string): ScaleLookup {
    const rt = this.kube.store.registry.byKind(ref.apiVersion, ref.kind);
    if (!rt)
      return { kind: 'error', error: `no matches for kind "${ref.kind}" in version "${ref.apiVersion}"` };
    if (!rt.subresources.includes('scale'))
      return {
        kind: 'error',
        error: `${rt.group ? `${rt.resource}.${rt.group}` : rt.resource} does not implement the scale subresource`,
      };
    const owner = this.kube.get(
      `${rt.group ? `${rt.group}/` : ''}${rt.version}/${rt.resource}`,
      namespace,
      ref.name,
    );
    if (!owner || metaOf(owner).uid !== ref.uid) return { kind: 'none' };
    const spec = isRecord(owner.spec) ? owner.spec : {};
    return { kind: 'found', uid: ref.uid, scale: typeof spec.replicas === 'number' ? spec.replicas : 1 };
  }

  private write(pdb: KubeObject, status: (current: PdbStatus) => PdbStatus): void {
    const { namespace, name = '' } = metaOf(pdb);
    this.kube.mutateStatus(R.poddisruptionbudgets, namespace, name, (draft) => {
      draft.status = status(statusOf(draft)) as unknown as Record<string, unknown>;
      return draft;
    });
  }

  private unmanagedEvent(pdb: KubeObject): void {
    const selector = isRecord(pdb.spec) ? JSON.stringify(pdb.spec.selector ?? null) : 'nil';
    this.event(
      pdb,
      'Warning',
      'UnmanagedPods',
      `Pods selected by this PodDisruptionBudget (selector: ${selector}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
    );
  }

  private event(pdb: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.record(involvedObjectOf(pdb), type, reason, message, SOURCE);
  }
}
