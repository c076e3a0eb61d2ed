import type { Random } from 'uproot';
import type { KubeObject } from '../kube/kube-types.js';
import { kubeTime, metaOf } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';

/**
 * core/v1 Events as the real components record them: the same reasons, messages and sources, and the
 * client-go correlator's aggregation (a repeated event bumps `count` and `lastTimestamp` instead of adding a
 * new object), so `kubectl describe` and `kubectl get events` read like a real cluster.
 */

export interface EventSource {
  readonly component: string;
  readonly host?: string;
}

export interface InvolvedObject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly apiVersion?: string;
  readonly fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

function hex(random: Random, digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

export function involvedObjectOf(obj: KubeObject, fieldPath?: string): InvolvedObject {
  const meta = metaOf(obj);
  return {
    kind: obj.kind ?? '',
    name: meta.name ?? '',
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    ...(meta.uid ? { uid: meta.uid } : {}),
    ...(obj.apiVersion ? { apiVersion: obj.apiVersion } : {}),
    ...(fieldPath ? { fieldPath } : {}),
  };
}

/** What a kubelet puts in events about its Node: the node name stands in for the uid. */
export function nodeReference(nodeName: string): InvolvedObject {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

export class EventRecorder {
  private readonly recent = new Map<string, string>();

  constructor(
    private readonly kube: TwinKube,
    private readonly random: Random,
  ) {}

  record(
    object: InvolvedObject,
    type: EventType,
    reason: string,
    message: string,
    source: EventSource,
  ): void {
    const namespace = object.namespace ?? 'default';
    const key = [
      object.kind,
      namespace,
      object.name,
      object.uid ?? '',
      type,
      reason,
      message,
      source.component,
      source.host ?? '',
    ].join('\u0000');
    const now = kubeTime(this.kube.clock.now());
    const existing = this.recent.get(key);
    try {
      if (existing && this.kube.get(R.events, namespace, existing)) {
        this.kube.mutate(R.events, namespace, existing, (draft) => ({
          ...draft,
          count: (typeof draft.count === 'number' ? draft.count : 1) + 1,
          lastTimestamp: now,
        }));
        return;
      }
      const name = `${object.name}.${hex(this.random, 16)}`;
      this.kube.create(R.events, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: object,
        reason,
        message,
        type,
        source,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        eventTime: null,
        reportingComponent: source.component,
        reportingInstance: source.host ?? '',
      });
      this.recent.set(key, name);
      if (this.recent.size > 10_000) this.recent.delete(this.recent.keys().next().value as string);
    } catch {
      // Events are best effort, as in client-go's broadcaster: a failed write never fails the component.
    }
  }
}
