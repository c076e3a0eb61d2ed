import type { KubeObject } from '../kube-object.js';
import type { ResourceType } from '../registry/resource-type.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. `object` is the new state (for DELETED, the last state stamped with the delete's RV). */
export interface StoreEvent {
  readonly type: WatchEventType;
  readonly rv: number;
  readonly storageId: string;
  readonly resourceType: ResourceType;
  readonly key: string;
  readonly namespace: string;
  readonly object: KubeObject;
  /** The state before this change; undefined for ADDED. */
  readonly prev: KubeObject | undefined;
}

/**
 * The bounded history of changes, oldest first: watches resume from it and paged lists rebuild their
 * snapshot from it. When it overflows the oldest events are dropped, and any request that needs them is
 * answered 410 Expired, like etcd after compaction.
 */
export class EventLog {
  private events: StoreEvent[] = [];
  private head = 0;
  private compacted = 0;

  constructor(private readonly capacity: number) {}

  /** Requests for changes after an RV below this are expired. */
  get compactedRevision(): number {
    return this.compacted;
  }

  get length(): number {
    return this.events.length - this.head;
  }

  append(event: StoreEvent): void {
    this.events.push(event);
    if (this.events.length - this.head > this.capacity) {
      this.compacted = this.events[this.head]!.rv;
      this.head++;
      // Drop the evicted prefix in batches so appends stay O(1) amortised.
      if (this.head >= 1024 && this.head * 2 >= this.events.length) {
        this.events = this.events.slice(this.head);
        this.head = 0;
      }
    }
  }

  /** Events after `rv` (of one collection when `storageId` is given), or undefined when they were compacted. */
  since(rv: number, storageId?: string): StoreEvent[] | undefined {
    if (rv < this.compacted) return undefined;
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: StoreEvent[] = [];
    for (let i = lo; i < this.events.length; i++) {
      const e = this.events[i]!;
      if (storageId === undefined || e.storageId === storageId) out.push(e);
    }
    return out;
  }
}
