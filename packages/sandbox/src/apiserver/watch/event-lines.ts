import type { Clock } from 'uproot';
import { toJson, type KubeObject } from '../kube-object.js';
import { apiVersionOf } from '../registry/resource-type.js';
import type { WatchEventType } from '../store/event-log.js';
import { defaultPrinter } from '../tables/other-printers.js';
import { rowJson, tableJson } from '../tables/table.js';
import type { WatchRequest } from './watch-request.js';

/**
 * Encodes watch event lines, once per stored object, event type and rendering: every stream that wants
 * the same encoding gets the same Buffer (stored objects are frozen, so the cache is keyed by identity).
 */
export class EventLines {
  private readonly lines = new WeakMap<object, Map<string, Buffer>>();

  constructor(private readonly clock: Clock) {}

  /**
   * `{"type":…,"object":…}\n`; `renderKey` is renderingKey(request), computed once by the caller. A Table
   * carries its column definitions only with `headers` (a stream's first event, apiserver
   * handlers/response.go watchEmbeddedEncoder).
   */
  line(
    type: WatchEventType,
    obj: KubeObject,
    request: WatchRequest,
    renderKey: string,
    headers = false,
  ): Buffer {
    const key = `${type}|${renderKey}|${headers && request.rendering.kind === 'table' ? 'h' : ''}`;
    let cache = this.lines.get(obj);
    if (!cache) {
      cache = new Map();
      this.lines.set(obj, cache);
    }
    let line = cache.get(key);
    if (line === undefined) {
      line = Buffer.from(`{"type":"${type}","object":${this.render(obj, request, headers)}}\n`);
      cache.set(key, line);
    }
    return line;
  }

  private render(obj: KubeObject, request: WatchRequest, headers: boolean): string {
    const r = request.rendering;
    const rt = request.resourceType;
    if (r.kind === 'object') {
      return obj.apiVersion === apiVersionOf(rt)
        ? toJson(obj)
        : JSON.stringify({ ...obj, apiVersion: apiVersionOf(rt) });
    }
    if (r.kind === 'table') {
      const printer = rt.printer ?? defaultPrinter;
      const row = rowJson(printer, obj, this.clock.now(), r.include, r.apiVersion);
      return tableJson(
        printer,
        [row],
        r.apiVersion,
        { resourceVersion: obj.metadata?.resourceVersion ?? '' },
        headers,
      );
    }
    return JSON.stringify({
      kind: 'PartialObjectMetadata',
      apiVersion: r.apiVersion,
      metadata: obj.metadata ?? {},
    });
  }
}
