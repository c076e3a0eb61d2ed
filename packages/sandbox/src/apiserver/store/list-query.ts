import type { KubeObject } from '../kube-object.js';
import type { FieldSelector } from '../selectors/field-selector.js';
import type { LabelSelector } from '../selectors/label-selector.js';
import { badRequest, CONTINUE_EXPIRED_MESSAGE, expired } from '../status/api-status-error.js';
import { lowerBound, type Collection } from './collection.js';
import type { EventLog } from './event-log.js';

export interface ListQuery {
  readonly namespace: string;
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  /** 0 or undefined: everything. */
  readonly limit?: number;
  readonly continueToken?: string;
  /** Serve the state at this RV (resourceVersionMatch=Exact); otherwise the current state. */
  readonly exactResourceVersion?: number;
}

export interface ListPage {
  readonly items: KubeObject[];
  readonly resourceVersion: number;
  readonly continueToken?: string;
  /** Items after this page (lists without selectors only). */
  readonly remainingItemCount?: number;
}

interface ContinuePosition {
  readonly rv: number;
  readonly start: string;
}

/** Same layout as the API server's token: base64url JSON of the snapshot RV and the next key. */
export function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` })).toString(
    'base64url',
  );
}

/**
 * apiserver pkg/storage/continue.go DecodeContinue, answered as pkg/storage/interfaces.go ValidateListOptions
 * does: `invalid continue token: <why>` (400). Go's own base64/JSON error texts are not reproduced word for word.
 */
export function decodeContinue(token: string): ContinuePosition {
  const invalidToken = (why: string) => badRequest(`invalid continue token: ${why}`);
  if (!/^[A-Za-z0-9_-]*$/.test(token)) throw invalidToken('continue key is not valid: illegal base64 data');
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof parsed;
  } catch (e) {
    throw invalidToken(`continue key is not valid: ${(e as Error).message}`);
  }
  if (parsed.v !== 'meta.k8s.io/v1') {
    throw invalidToken(
      `continue key is not valid: server does not recognize this encoded version ${String(parsed.v ?? '')}`,
    );
  }
  if (typeof parsed.rv !== 'number' || parsed.rv === 0) {
    throw invalidToken(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  if (typeof parsed.start !== 'string' || parsed.start === '') {
    throw invalidToken('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  }
  return { rv: parsed.rv, start: parsed.start };
}

/**
 * How the collection looked at `rv`, as far as it differs from now: key → object at rv, or null when it
 * did not exist then. Rebuilt from the event log (the log is our MVCC history).
 */
function snapshotOverlay(log: EventLog, storageId: string, rv: number): Map<string, KubeObject | null> {
  const events = log.since(rv, storageId);
  if (events === undefined) throw expired(CONTINUE_EXPIRED_MESSAGE);
  const overlay = new Map<string, KubeObject | null>();
  for (const e of events) {
    if (!overlay.has(e.key)) overlay.set(e.key, e.type === 'ADDED' ? null : (e.prev ?? null));
  }
  return overlay;
}

/**
 * One page of a list, in key order. A continue token pins the RV of the first page: later pages are served
 * from that snapshot, so concurrent writes neither shift nor duplicate results.
 */
export function listPage(
  collection: Collection,
  log: EventLog,
  storageId: string,
  currentRv: number,
  query: ListQuery,
): ListPage {
  const position = query.continueToken ? decodeContinue(query.continueToken) : undefined;
  const snapshotRv = position?.rv ?? query.exactResourceVersion ?? currentRv;
  const overlay = snapshotRv < currentRv ? snapshotOverlay(log, storageId, snapshotRv) : undefined;
  const startKey = position?.start ?? '';
  const nsPrefix = query.namespace ? `${query.namespace}/` : '';

  let keys: readonly string[];
  let i: number;
  let end: number;
  const indexed = [...query.fieldSelector.requirements].find(
    (r) => r.operator === '=' && collection.hasIndex(r.field),
  );
  if (indexed) {
    keys = collection.indexLookup(indexed.field, indexed.value);
    i = lowerBound(keys, startKey);
    end = keys.length;
  } else {
    keys = collection.sortedKeys();
    const [s, e] = collection.namespaceRange(query.namespace);
    i = Math.max(s, lowerBound(keys, startKey));
    end = e;
  }
  // Objects that existed at the snapshot but are gone (or moved out of the index) now.
  const extras = overlay
    ? [...overlay.entries()]
        .filter(([k, v]) => v !== null && k >= startKey && k.startsWith(nsPrefix))
        .map(([k]) => k)
        .sort()
    : [];
  let j = 0;

  const limit = query.limit && query.limit > 0 ? query.limit : Infinity;
  const items: KubeObject[] = [];
  let lastKey = '';
  while (items.length < limit) {
    const a = i < end ? keys[i] : undefined;
    const b = j < extras.length ? extras[j] : undefined;
    if (a === undefined && b === undefined) break;
    let key: string;
    if (b === undefined || (a !== undefined && a < b)) {
      key = a!;
      i++;
    } else {
      key = b;
      j++;
      if (a === b) i++;
    }
    if (nsPrefix && !key.startsWith(nsPrefix)) continue;
    const obj = overlay?.has(key) ? overlay.get(key) : collection.get(key);
    if (!obj) continue;
    if (!query.labelSelector.matches(obj.metadata?.labels) || !query.fieldSelector.matches(obj)) continue;
    items.push(obj);
    lastKey = key;
  }
  const more = items.length >= limit && (i < end || j < extras.length);
  if (!more) return { items, resourceVersion: snapshotRv };
  const page = { items, resourceVersion: snapshotRv, continueToken: encodeContinue(snapshotRv, lastKey) };
  // apiserver pkg/storage/etcd3/store.go GetList: the count of what is left, only without selectors.
  if (!query.labelSelector.empty || !query.fieldSelector.empty) return page;
  let remaining = 0;
  for (const key of new Set([...keys.slice(i, end), ...extras.slice(j)])) {
    if (nsPrefix && !key.startsWith(nsPrefix)) continue;
    if (overlay?.has(key) ? overlay.get(key) : collection.get(key)) remaining++;
  }
  return { ...page, remainingItemCount: remaining };
}
