/**
 * The shape the emulator stores: plain JSON objects, deep-frozen once written so reads can share them
 * without copying (callers that want to edit one take a `structuredClone`).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = Record<string, unknown>;

export interface KubeObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly deletionGracePeriodSeconds?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly unknown[];
  readonly [key: string]: unknown;
}

export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: KubeObjectMeta;
  readonly [key: string]: unknown;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Keys are data: a map key may be `__proto__`, `constructor` or `prototype` (ConfigMap data, labels, custom
 * resources), which the real API server stores like any other. `obj[key]` reads the prototype's property
 * when the object has no such own key, and `obj[key] = v` with `__proto__` replaces the prototype instead
 * of storing a key; these two never do.
 */
export function ownValue(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as JsonObject)[key] : undefined;
}

/** Sets `key` as an own, enumerable data property, whatever the key. */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

export function metaOf(obj: KubeObject): KubeObjectMeta {
  return obj.metadata ?? {};
}

/** Freezes in place, recursively; returns the same value typed as read-only. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/** Interned strings, by text; cleared when full, so texts no object holds any more do not pile up. */
const internPool = new Map<string, string>();
const INTERN_POOL_SIZE = 1 << 17;

/**
 * One copy of a string value: the same name, label, timestamp or image in thousands of stored objects
 * and their versions is one string, not one per copy (each write's structuredClone and each request's
 * JSON.parse make new ones). A first sighting is stored flat, so the rope a template literal builds (a
 * uid is nine pieces, 300 bytes for 36 characters) collapses to its text. Long texts stay as they are.
 */
export function interned(text: string): string {
  if (text.length > 512) return text;
  let copy = internPool.get(text);
  if (copy === undefined) {
    if (internPool.size >= INTERN_POOL_SIZE) internPool.clear();
    copy = JSON.parse(JSON.stringify(text)) as string;
    internPool.set(copy, copy);
  }
  return copy;
}

/**
 * deepFreeze for what the store keeps: freezes in place and swaps every string for its interned copy.
 * Subtrees already frozen (shared with the previous version) are left alone; their strings already are.
 */
export function freezeStored<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const child = obj[key];
    if (typeof child === 'string') obj[key] = interned(child);
    else if (typeof child === 'object' && child !== null) freezeStored(child);
  }
  Object.freeze(obj);
  return value;
}

/**
 * Before a new version is stored: every subtree of `next` equal to the same place in `prev` (the stored
 * version before it) becomes that frozen subtree, so versions kept side by side (the collection and the
 * watch history) share what did not change instead of each holding a full copy. Equal means the same keys
 * in the same order, so the JSON on the wire is byte for byte what it was. Returns whether all was equal.
 * Frozen parts of `next` are not entered (they are shared already, or not the store's to change).
 */
export function shareUnchanged(next: unknown, prev: unknown): boolean {
  if (next === prev) return true;
  if (typeof next !== 'object' || next === null || typeof prev !== 'object' || prev === null) return false;
  if (Array.isArray(next) !== Array.isArray(prev) || Object.isFrozen(next)) return false;
  const a = next as Record<string, unknown>;
  const b = prev as Record<string, unknown>;
  const keys = Object.keys(a);
  const prevKeys = Object.keys(b);
  let equal = keys.length === prevKeys.length;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (equal && prevKeys[i] !== key) equal = false;
    if (!Object.hasOwn(b, key)) {
      equal = false;
      continue;
    }
    const child = a[key];
    const before = b[key];
    if (child === before) continue;
    if (typeof child === 'object' && child !== null && shareUnchanged(child, before)) a[key] = before;
    else equal = false;
  }
  return equal;
}

/**
 * A mutable deep copy of a (possibly frozen) JSON value, as the wire carries it (JSON text and back, so
 * undefined-valued keys are dropped and a Date becomes its ISO text, as in any request body). Not
 * structuredClone: from ~1,500 nodes on, each object V8's deserializer made (and each object built key
 * by key, tried too) got a hidden class of its own, with no transition back to the shared tree: every
 * Event's `source`, every node's status, every pod's metadata, 8 KiB of maps and descriptor arrays per
 * node at 3,000 nodes (issue 29). JSON.parse's objects keep sharing theirs (V8 takes them from its cache
 * of object-literal maps by property count), and the copy is about as fast.
 */
export function thaw<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  return JSON.parse(JSON.stringify(value)) as T;
}

const jsonCache = new Map<object, string>();
const JSON_CACHE_SIZE = 1024;

/** JSON of a frozen stored object, computed once while it is recent: watch fan-out reuses it. */
export function toJson(obj: KubeObject): string {
  let json = jsonCache.get(obj);
  if (json === undefined) {
    json = JSON.stringify(obj);
    if (Object.isFrozen(obj)) {
      if (jsonCache.size >= JSON_CACHE_SIZE) jsonCache.delete(jsonCache.keys().next().value as object);
      jsonCache.set(obj, json);
    }
  }
  return json;
}

/** Structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as object).filter((k) => (a as JsonObject)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as JsonObject)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every(
    (k) => Object.hasOwn(b as object, k) && jsonEqual((a as JsonObject)[k], (b as JsonObject)[k]),
  );
}

/** RFC 3339 at second precision, as Kubernetes writes metav1.Time. */
export function kubeTimestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
