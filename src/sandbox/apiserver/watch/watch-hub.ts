import type { ServerResponse } from 'node:http';
import type { Clock } from '../../../clock/index.js';
import { toJson, type KubeObject } from '../kube-object.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { apiVersionOf, storageIdOf, type ResourceType } from '../registry/resource-type.js';
import type { FieldSelector } from '../selectors/field-selector.js';
import type { LabelSelector } from '../selectors/label-selector.js';
import type { KubeStatus } from '../status/api-status-error.js';
import type { StoreEvent, WatchEventType } from '../store/event-log.js';
import type { ObjectStore } from '../store/object-store.js';
import { defaultPrinter } from '../tables/other-printers.js';
import { rowJson, tableJson } from '../tables/table.js';
import type { Rendering } from '../http/negotiation.js';

export interface WatchRequest {
  readonly resourceType: ResourceType;
  /** '' for all namespaces. */
  readonly namespace: string;
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  readonly rendering: Rendering;
  readonly allowBookmarks: boolean;
  /** Close the stream after this long (ms); undefined keeps it open until the client leaves. */
  readonly timeoutMs?: number;
}

/** A watch stream's position: send synthetic ADDED for the current state, or resume after an RV. */
export type WatchStart = { readonly from: 'now-with-state' } | { readonly from: 'rv'; readonly rv: number };

/**
 * Past this much unsent data a watcher is too slow: its stream is ended (cleanly, as the API server
 * terminates slow watchers), and the client resumes from the last resourceVersion it received.
 */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

function renderingKey(request: WatchRequest): string {
  const r = request.rendering;
  const version = request.resourceType.version;
  if (r.kind === 'table') return `t:${r.apiVersion}:${r.include}:${version}`;
  return r.kind === 'metadata' ? `m:${r.apiVersion}` : `o:${version}`;
}

class Watcher {
  pending: Buffer[] = [];
  closed = false;
  private readonly stop = new AbortController();

  constructor(
    readonly request: WatchRequest,
    readonly storageId: string,
    private readonly res: ServerResponse,
    private readonly onClose: (w: Watcher) => void,
  ) {}

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  matches(obj: KubeObject | undefined): boolean {
    if (!obj) return false;
    const r = this.request;
    if (r.namespace && obj.metadata?.namespace !== r.namespace) return false;
    return r.labelSelector.matches(obj.metadata?.labels) && r.fieldSelector.matches(obj);
  }

  /** The event type this watcher sees, or undefined when the change is outside its selection. */
  typeFor(e: StoreEvent): WatchEventType | undefined {
    const now = this.matches(e.object);
    if (e.type === 'ADDED') return now ? 'ADDED' : undefined;
    if (e.type === 'DELETED') return this.matches(e.prev ?? e.object) ? 'DELETED' : undefined;
    const before = this.matches(e.prev);
    if (now && before) return 'MODIFIED';
    if (now) return 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  enqueue(line: Buffer): void {
    if (!this.closed) this.pending.push(line);
  }

  flush(): void {
    if (this.closed || this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    if (this.res.destroyed) {
      this.close(false);
      return;
    }
    // The same Buffers go to every watcher; corking turns one turn's lines into a single writev.
    this.res.cork();
    for (const line of lines) this.res.write(line);
    this.res.uncork();
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.close(true);
  }

  close(clean: boolean): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.stop.abort();
    this.onClose(this);
    if (clean) this.res.end();
    else this.res.destroy();
  }
}

/**
 * Fans committed changes out to open watch streams. Each event is serialised once per rendering and the
 * same string is written to every watcher that wants it; writes are batched per event-loop turn.
 */
export class WatchHub {
  private readonly byStorage = new Map<string, Set<Watcher>>();
  private readonly dirty = new Set<Watcher>();
  private flushScheduled = false;
  private readonly rendered = new WeakMap<object, Map<string, string>>();
  private readonly lines = new WeakMap<object, Map<string, Buffer>>();
  private readonly unsubscribe: () => void;
  private readonly unwatchRegistry: () => void;

  constructor(
    private readonly store: ObjectStore,
    registry: ResourceRegistry,
    private readonly clock: Clock,
    private readonly bookmarkIntervalMs: number,
  ) {
    this.unsubscribe = store.subscribe((e) => this.dispatch(e));
    // A CRD's deletion ends the watches on its resources.
    this.unwatchRegistry = registry.onChange(() => {
      for (const [id, watchers] of this.byStorage) {
        const still = registry.all().some((t) => storageIdOf(t) === id);
        if (!still) for (const w of [...watchers]) w.close(true);
      }
    });
  }

  /** Open watch streams. */
  get size(): number {
    let n = 0;
    for (const set of this.byStorage.values()) n += set.size;
    return n;
  }

  /** Starts a watch stream on `res` (headers are flushed at once). Throws 410 before writing when `start` is too old. */
  open(request: WatchRequest, start: WatchStart, res: ServerResponse): void {
    const rt = request.resourceType;
    // Computed synchronously with registration below, so no change can fall between replay and live events.
    let replay: ({ kind: 'state'; obj: KubeObject } | { kind: 'event'; event: StoreEvent })[] = [];
    let expired: KubeStatus | undefined;
    if (start.from === 'now-with-state') {
      const { items } = this.store.list(rt, {
        namespace: request.namespace,
        labelSelector: request.labelSelector,
        fieldSelector: request.fieldSelector,
      });
      replay = items.map((obj) => ({ kind: 'state' as const, obj }));
    } else {
      try {
        replay = this.store.eventsSince(rt, start.rv).map((event) => ({ kind: 'event' as const, event }));
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
    const storageId = storageIdOf(rt);
    const watcher = new Watcher(request, storageId, res, (w) => this.forget(w));
    let set = this.byStorage.get(storageId);
    if (!set) {
      set = new Set();
      this.byStorage.set(storageId, set);
    }
    set.add(watcher);
    res.on('close', () => watcher.close(false));
    for (const item of replay) {
      if (item.kind === 'state') {
        watcher.enqueue(this.line('ADDED', item.obj, request));
      } else {
        const type = watcher.typeFor(item.event);
        if (type) watcher.enqueue(this.line(type, item.event.object, request));
      }
    }
    this.markDirty(watcher);
    if (request.timeoutMs !== undefined) {
      this.clock.sleep(request.timeoutMs, watcher.signal).then(
        () => watcher.close(true),
        () => undefined,
      );
    }
    if (request.allowBookmarks) void this.bookmarks(watcher);
  }

  /** Ends matching streams; returns how many. */
  drop(filter: { resource?: string; namespace?: string; abrupt?: boolean } = {}): number {
    let n = 0;
    for (const watchers of this.byStorage.values()) {
      for (const w of [...watchers]) {
        const rt = w.request.resourceType;
        if (
          filter.resource !== undefined &&
          filter.resource !== rt.resource &&
          filter.resource !== `${rt.resource}.${rt.group}`
        )
          continue;
        if (filter.namespace !== undefined && filter.namespace !== w.request.namespace) continue;
        w.close(!filter.abrupt);
        n++;
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
    const watchers = this.byStorage.get(e.storageId);
    if (!watchers || watchers.size === 0) return;
    for (const w of watchers) {
      const type = w.typeFor(e);
      if (!type) continue;
      w.enqueue(this.line(type, e.object, w.request));
      this.markDirty(w);
    }
  }

  /** One encoded event line, shared by every watcher with the same rendering. */
  private line(type: WatchEventType, obj: KubeObject, request: WatchRequest): Buffer {
    const key = `${type}|${renderingKey(request)}`;
    let cache = this.lines.get(obj);
    if (!cache) {
      cache = new Map();
      this.lines.set(obj, cache);
    }
    let line = cache.get(key);
    if (line === undefined) {
      line = Buffer.from(`{"type":"${type}","object":${this.render(obj, request)}}\n`);
      cache.set(key, line);
    }
    return line;
  }

  /** The object part of an event in the watcher's rendering, cached per object and rendering. */
  private render(obj: KubeObject, request: WatchRequest): string {
    const r = request.rendering;
    if (r.kind === 'object') {
      const rt = request.resourceType;
      return obj.apiVersion === apiVersionOf(rt)
        ? toJson(obj)
        : JSON.stringify({ ...obj, apiVersion: apiVersionOf(rt) });
    }
    const key = renderingKey(request);
    let cache = this.rendered.get(obj);
    if (!cache) {
      cache = new Map();
      this.rendered.set(obj, cache);
    }
    let json = cache.get(key);
    if (json === undefined) {
      if (r.kind === 'table') {
        const printer = request.resourceType.printer ?? defaultPrinter;
        const row = rowJson(printer, obj, this.clock.now(), r.include, r.apiVersion);
        json = tableJson(printer, [row], r.apiVersion, {
          resourceVersion: obj.metadata?.resourceVersion ?? '',
        });
      } else {
        json = JSON.stringify({
          kind: 'PartialObjectMetadata',
          apiVersion: r.apiVersion,
          metadata: obj.metadata ?? {},
        });
      }
      cache.set(key, json);
    }
    return json;
  }

  private async bookmarks(w: Watcher): Promise<void> {
    const rt = w.request.resourceType;
    while (!w.closed) {
      try {
        await this.clock.sleep(this.bookmarkIntervalMs, w.signal);
      } catch {
        return;
      }
      const bookmark = {
        kind: rt.kind,
        apiVersion: apiVersionOf(rt),
        metadata: { resourceVersion: this.store.resourceVersion },
      };
      w.enqueue(Buffer.from(`{"type":"BOOKMARK","object":${JSON.stringify(bookmark)}}\n`));
      this.markDirty(w);
    }
  }

  private markDirty(w: Watcher): void {
    this.dirty.add(w);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const batch = [...this.dirty];
      this.dirty.clear();
      for (const watcher of batch) watcher.flush();
    });
  }

  private forget(w: Watcher): void {
    this.byStorage.get(w.storageId)?.delete(w);
    this.dirty.delete(w);
  }
}
