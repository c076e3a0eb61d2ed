import type { ServerResponse } from 'node:http';
import type { Clock } from 'uproot';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { apiVersionOf, storageIdOf } from '../registry/resource-type.js';
import type { KubeStatus } from '../status/api-status-error.js';
import type { StoreEvent } from '../store/event-log.js';
import type { ObjectStore } from '../store/object-store.js';
import { EventLines } from './event-lines.js';
import { Watcher, WatchGroup } from './watch-group.js';
import { eventTypeFor, selectionKey, type WatchRequest, type WatchStart } from './watch-request.js';

export type { WatchRequest, WatchStart } from './watch-request.js';

/**
 * Fans committed changes out to open watch streams. Streams with the same selection and encoding form a
 * group: an event is matched and serialised once per group (and once per encoding across groups), and
 * each event-loop turn's lines go to every stream of a group as one shared Buffer.
 */
export class WatchHub {
  /** storage id → selection key → group. */
  private readonly byStorage = new Map<string, Map<string, WatchGroup>>();
  private readonly dirty = new Set<WatchGroup>();
  private flushScheduled = false;
  private readonly lines: EventLines;
  private readonly unsubscribe: () => void;
  private readonly unwatchRegistry: () => void;

  constructor(
    private readonly store: ObjectStore,
    registry: ResourceRegistry,
    private readonly clock: Clock,
    private readonly bookmarkIntervalMs: number,
  ) {
    this.lines = new EventLines(clock);
    this.unsubscribe = store.subscribe((e) => this.dispatch(e));
    // A CRD's deletion ends the watches on its resources.
    this.unwatchRegistry = registry.onChange(() => {
      for (const [id, groups] of this.byStorage) {
        const still = registry.all().some((t) => storageIdOf(t) === id);
        if (!still) for (const g of [...groups.values()]) for (const w of [...g.watchers]) g.close(w, true);
      }
    });
  }

  /** Open watch streams. */
  get size(): number {
    let n = 0;
    for (const groups of this.byStorage.values()) for (const g of groups.values()) n += g.watchers.size;
    return n;
  }

  /** Starts a watch stream on `res` (headers are flushed at once). Throws 410 before writing when `start` is too old. */
  open(request: WatchRequest, start: WatchStart, res: ServerResponse): void {
    const rt = request.resourceType;
    const storageId = storageIdOf(rt);
    const key = selectionKey(request);
    const groups = this.byStorage.get(storageId);
    const group = groups?.get(key) ?? new WatchGroup(key, request, (g) => this.forget(storageId, g));
    // Computed synchronously with joining the group below, so no change can fall between replay and live events.
    const replay: Buffer[] = [];
    let expired: KubeStatus | undefined;
    if (start.from === 'now-with-state') {
      const { items } = this.store.list(rt, {
        namespace: request.namespace,
        labelSelector: request.labelSelector,
        fieldSelector: request.fieldSelector,
      });
      for (const obj of items)
        replay.push(this.lines.line('ADDED', obj, request, group.renderKey, replay.length === 0));
      if (start.initialEventsEnd) replay.push(this.bookmarkLine(request, true));
    } else if (start.from === 'rv') {
      try {
        for (const event of this.store.eventsSince(rt, start.rv)) {
          const type = eventTypeFor(request, event);
          if (type)
            replay.push(this.lines.line(type, event.object, request, group.renderKey, replay.length === 0));
        }
      } catch (err) {
        expired = (err as { status?: KubeStatus }).status;
      }
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    if (expired) {
      res.end(`{"type":"ERROR","object":${JSON.stringify(expired)}}\n`);
      return;
    }
    res.socket?.setNoDelay(true);
    if (!groups) this.byStorage.set(storageId, new Map([[key, group]]));
    else if (!groups.has(key)) groups.set(key, group);
    const watcher = new Watcher(request, res);
    group.join(watcher, replay);
    res.on('close', () => group.close(watcher, false));
    this.markDirty(group);
    if (request.timeoutMs !== undefined) {
      this.clock.sleep(request.timeoutMs, watcher.signal).then(
        () => group.close(watcher, true),
        () => undefined,
      );
    }
    if (request.allowBookmarks) void this.bookmarks(group, watcher);
  }

  /** Ends matching streams; returns how many. */
  drop(filter: { resource?: string; namespace?: string; abrupt?: boolean } = {}): number {
    let n = 0;
    for (const groups of this.byStorage.values()) {
      for (const g of [...groups.values()]) {
        const rt = g.request.resourceType;
        if (
          filter.resource !== undefined &&
          filter.resource !== rt.resource &&
          filter.resource !== `${rt.resource}.${rt.group}`
        )
          continue;
        if (filter.namespace !== undefined && filter.namespace !== g.request.namespace) continue;
        for (const w of [...g.watchers]) {
          g.close(w, !filter.abrupt);
          n++;
        }
      }
    }
    return n;
  }

  close(): void {
    this.unsubscribe();
    this.unwatchRegistry();
    this.drop({});
  }

  private dispatch(e: StoreEvent): void {
    const groups = this.byStorage.get(e.storageId);
    if (!groups) return;
    for (const g of groups.values()) {
      const type = g.typeFor(e);
      if (!type) continue;
      g.push(this.lines.line(type, e.object, g.request, g.renderKey), () =>
        this.lines.line(type, e.object, g.request, g.renderKey, true),
      );
      this.markDirty(g);
    }
  }

  private async bookmarks(group: WatchGroup, w: Watcher): Promise<void> {
    while (!w.closed) {
      try {
        await this.clock.sleep(this.bookmarkIntervalMs, w.signal);
      } catch {
        return;
      }
      group.pushOwn(w, this.bookmarkLine(w.request, false));
      this.markDirty(group);
    }
  }

  /**
   * A BOOKMARK at the current RV; the one closing a watch's initial events carries the annotation
   * `k8s.io/initial-events-end: "true"` (apimachinery pkg/apis/meta/v1 InitialEventsAnnotationKey).
   */
  private bookmarkLine(request: WatchRequest, initialEventsEnd: boolean): Buffer {
    const rt = request.resourceType;
    const bookmark = {
      kind: rt.kind,
      apiVersion: apiVersionOf(rt),
      metadata: {
        resourceVersion: this.store.resourceVersion,
        ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
      },
    };
    return Buffer.from(`{"type":"BOOKMARK","object":${JSON.stringify(bookmark)}}\n`);
  }

  /** Writes are batched per event-loop turn: a burst of changes becomes one write per stream. */
  private markDirty(g: WatchGroup): void {
    this.dirty.add(g);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const batch = [...this.dirty];
      this.dirty.clear();
      for (const group of batch) if (group.pending) group.flush();
    });
  }

  private forget(storageId: string, g: WatchGroup): void {
    const groups = this.byStorage.get(storageId);
    if (groups?.get(g.key) === g) groups.delete(g.key);
    if (groups?.size === 0) this.byStorage.delete(storageId);
    this.dirty.delete(g);
  }
}
