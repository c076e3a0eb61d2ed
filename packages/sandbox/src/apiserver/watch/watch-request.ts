import type { KubeObject } from '../kube-object.js';
import type { Rendering } from '../http/output.js';
import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';
import type { FieldSelector } from '../selectors/field-selector.js';
import type { LabelSelector } from '../selectors/label-selector.js';
import type { StoreEvent, WatchEventType } from '../store/event-log.js';

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

/**
 * A watch stream's position: synthetic ADDED for the current state (then, with `initialEventsEnd`, a
 * BOOKMARK saying the initial events are over), only changes from now, or changes after an RV.
 */
export type WatchStart =
  | { readonly from: 'now-with-state'; readonly initialEventsEnd: boolean }
  | { readonly from: 'now' }
  | { readonly from: 'rv'; readonly rv: number };

/** Identifies how an event's object is encoded for a request (object, table or metadata, and version). */
export function renderingKey(request: WatchRequest): string {
  const r = request.rendering;
  const version = request.resourceType.version;
  if (r.kind === 'table') return `t:${r.apiVersion}:${r.include}:${version}`;
  return r.kind === 'metadata' ? `m:${r.apiVersion}` : `o:${version}`;
}

/**
 * Requests with the same key see the same events encoded the same way: they can share one serialised
 * batch per turn. Per-stream settings (timeout, bookmarks) are not part of it.
 */
export function selectionKey(request: WatchRequest): string {
  return JSON.stringify([
    apiVersionOf(request.resourceType),
    renderingKey(request),
    request.namespace,
    request.labelSelector.requirements,
    request.fieldSelector.requirements,
  ]);
}

function matches(request: WatchRequest, obj: KubeObject | undefined): boolean {
  if (!obj) return false;
  if (request.namespace && obj.metadata?.namespace !== request.namespace) return false;
  return request.labelSelector.matches(obj.metadata?.labels) && request.fieldSelector.matches(obj);
}

/**
 * The event type a watch sees, or undefined when the change is outside its selection: an object that
 * moves into the selection is ADDED for it, one that moves out is DELETED.
 */
export function eventTypeFor(request: WatchRequest, e: StoreEvent): WatchEventType | undefined {
  const now = matches(request, e.object);
  if (e.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (e.type === 'DELETED') return matches(request, e.prev ?? e.object) ? 'DELETED' : undefined;
  const before = matches(request, e.prev);
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  return before ? 'DELETED' : undefined;
}

/** Whether an object is in a watch's selection now (for the synthetic ADDED of a watch from now). */
export function inSelection(request: WatchRequest, obj: KubeObject): boolean {
  return matches(request, obj);
}
