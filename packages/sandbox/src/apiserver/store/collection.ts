import type { KubeObject } from '../kube-object.js';
import type { FieldGetter } from '../registry/resource-type.js';

/** Index of `[start, end)` of the first key >= `key` in a sorted array. */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Store key of an object: `namespace/name`, or `name` for cluster-scoped kinds (etcd's ordering). */
export function storeKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

interface FieldIndex {
  readonly get: FieldGetter;
  readonly byValue: Map<string, Set<string>>;
}

/**
 * All objects of one group/resource. Keeps keys sorted (so lists page in etcd order without sorting per
 * request; a namespace is a contiguous key range) and equality indexes on selected fields.
 */
export class Collection {
  private readonly objects = new Map<string, KubeObject>();
  private readonly keys: string[] = [];
  private readonly indexes = new Map<string, FieldIndex>();

  constructor(indexed: Readonly<Record<string, FieldGetter>> = {}) {
    for (const [field, get] of Object.entries(indexed)) this.indexes.set(field, { get, byValue: new Map() });
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** Stores `obj` under `key`; returns the previous object. */
  set(key: string, obj: KubeObject): KubeObject | undefined {
    const prev = this.objects.get(key);
    this.objects.set(key, obj);
    if (prev === undefined) this.keys.splice(lowerBound(this.keys, key), 0, key);
    for (const index of this.indexes.values()) {
      const before = prev === undefined ? undefined : index.get(prev);
      const after = index.get(obj);
      if (before === after) continue;
      if (before !== undefined) this.unindex(index, before, key);
      this.addIndex(index, after, key);
    }
    return prev;
  }

  delete(key: string): KubeObject | undefined {
    const prev = this.objects.get(key);
    if (prev === undefined) return undefined;
    this.objects.delete(key);
    const at = lowerBound(this.keys, key);
    if (this.keys[at] === key) this.keys.splice(at, 1);
    for (const index of this.indexes.values()) this.unindex(index, index.get(prev), key);
    return prev;
  }

  /** Keys in order. Read-only: it is the live array. */
  sortedKeys(): readonly string[] {
    return this.keys;
  }

  /** `[start, end)` of the keys in a namespace (all keys when namespace is empty). */
  namespaceRange(namespace: string): [number, number] {
    if (!namespace) return [0, this.keys.length];
    const prefix = `${namespace}/`;
    // '0' is the character after '/', so [prefix, namespace + '0') is exactly the keys starting with prefix.
    return [lowerBound(this.keys, prefix), lowerBound(this.keys, `${namespace}0`)];
  }

  hasIndex(field: string): boolean {
    return this.indexes.has(field);
  }

  /** Keys whose indexed `field` equals `value`, sorted. */
  indexLookup(field: string, value: string): string[] {
    const set = this.indexes.get(field)?.byValue.get(value);
    return set ? [...set].sort() : [];
  }

  values(): IterableIterator<KubeObject> {
    return this.objects.values();
  }

  private addIndex(index: FieldIndex, value: string, key: string): void {
    let set = index.byValue.get(value);
    if (!set) {
      set = new Set();
      index.byValue.set(value, set);
    }
    set.add(key);
  }

  private unindex(index: FieldIndex, value: string, key: string): void {
    const set = index.byValue.get(value);
    if (!set) return;
    set.delete(key);
    if (set.size === 0) index.byValue.delete(value);
  }
}
