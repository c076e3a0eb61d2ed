import type { CoreV1Event } from '@kubernetes/client-node';
import type { Clock } from 'uproot';
import type { KubeApi } from './kube-api.js';

/** The object an event is about (core/v1 ObjectReference, reduced). */
export interface EventTarget {
  readonly kind: 'Node' | 'Service';
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
}

export type EventType = 'Normal' | 'Warning';

/** One emitted event, as the recorder reports it to its owner (for the ledger and logs). */
export interface RecordedEvent {
  readonly target: EventTarget;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
}

/**
 * A small client-go EventRecorder: writes core/v1 Events from `component`, and, like the event correlator,
 * counts repeats of the same event (same object, type, reason, message) on one Event object instead of
 * creating a new one each time. Failures to write an event are reported, never thrown: events are best-effort.
 */
export class EventRecorder {
  private readonly seen = new Map<string, { name: string; namespace: string; count: number }>();

  constructor(
    private readonly kube: KubeApi,
    private readonly clock: Clock,
    private readonly component: string,
    private readonly host: string,
    private readonly onEvent: (event: RecordedEvent) => void = () => {},
    private readonly onError: (message: string) => void = () => {},
  ) {}

  async event(target: EventTarget, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = target.namespace || 'default';
    const key = [target.kind, namespace, target.name, target.uid ?? '', type, reason, message].join('\u0000');
    const now = timestamp(this.clock.now());
    const previous = this.seen.get(key);
    try {
      if (previous) {
        previous.count++;
        await this.kube.patchEvent(previous.namespace, previous.name, {
          count: previous.count,
          lastTimestamp: now,
        });
        this.onEvent({ target, type, reason, message, count: previous.count });
        return;
      }
      // client-go names events `<object>.<unix nanos in hex>`. In virtual time many events share a
      // millisecond, so the nanoseconds come from a process-wide counter instead.
      const nanos = BigInt(Math.floor(this.clock.now())) * 1_000_000n + BigInt(nextSequence());
      const name = `${target.name}.${nanos.toString(16)}`;
      const body: CoreV1Event = {
        metadata: { name, namespace },
        involvedObject: {
          kind: target.kind,
          name: target.name,
          apiVersion: 'v1',
          ...(target.namespace ? { namespace: target.namespace } : {}),
          ...(target.uid ? { uid: target.uid } : {}),
        },
        reason,
        message,
        type,
        source: { component: this.component },
        reportingComponent: this.component,
        reportingInstance: this.host,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      };
      await this.kube.createEvent(namespace, body);
      this.seen.set(key, { name, namespace, count: 1 });
      this.onEvent({ target, type, reason, message, count: 1 });
    } catch (error) {
      this.onError(`failed to record event ${reason} on ${target.kind} ${target.name}: ${String(error)}`);
    }
  }
}

let sequence = 0;
const nextSequence = (): number => (sequence = (sequence + 1) % 1_000_000);

/** metav1.Time has one-second precision. */
function timestamp(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}
