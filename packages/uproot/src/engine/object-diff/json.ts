/** Plain-JSON helpers for the engine (no I/O); the plain primitives are core's (core/model/json-value.ts). */
import { isRecord, type JsonRecord } from '../../core/model/json-value.js';

export { cloneJson, isRecord, type JsonRecord } from '../../core/model/json-value.js';
export type FieldPath = readonly (string | number)[];

/** Structural equality of JSON values (key order ignored, array order kept; keys whose value is undefined
 * count as absent, unlike core's deepEqual, since an edit may set a field to undefined to drop it). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

export type Lookup = { readonly present: true; readonly value: unknown } | { readonly present: false };

export function lookup(root: unknown, path: FieldPath): Lookup {
  let current: unknown = root;
  for (const key of path) {
    if (Array.isArray(current) && typeof key === 'number' && key >= 0 && key < current.length) {
      current = current[key];
    } else if (isRecord(current) && typeof key === 'string' && Object.hasOwn(current, key)) {
      current = current[key];
    } else {
      return { present: false };
    }
  }
  return { present: true, value: current };
}

/**
 * Sets an own property, as JSON.parse makes one: a key such as `__proto__` (which JSON may carry) is data, and a
 * plain assignment would set the object's prototype instead.
 */
export function setOwn(container: object, key: string | number, value: unknown): void {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Sets a value, creating objects on the way. `root` must be a record and is mutated. */
export function setPath(root: JsonRecord, path: FieldPath, value: unknown): void {
  if (path.length === 0) throw new RangeError('cannot set the root');
  let current: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const nextKey = path[i + 1]!;
    const container = current as Record<string | number, unknown>;
    let next: unknown = Object.hasOwn(container, key) ? container[key] : undefined;
    if (typeof next !== 'object' || next === null) {
      next = typeof nextKey === 'number' ? [] : {};
      setOwn(container, key, next);
    }
    current = next;
  }
  setOwn(current as object, path[path.length - 1]!, value);
}

/** Removes a field (or an array element) when present. `root` is mutated. */
export function deletePath(root: JsonRecord, path: FieldPath): void {
  const parent = lookup(root, path.slice(0, -1));
  if (!parent.present) return;
  const key = path[path.length - 1]!;
  if (Array.isArray(parent.value) && typeof key === 'number') parent.value.splice(key, 1);
  else if (isRecord(parent.value) && typeof key === 'string') delete parent.value[key];
}

/** A path for messages: spec.rkeConfig.machineSelectorConfig[0].config. */
export function formatPath(path: FieldPath): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${key}`))
    .join('');
}

/** RFC 6901 pointer → path; numeric segments stay strings unless the container is an array (decided later). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new RangeError(`not a JSON pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
