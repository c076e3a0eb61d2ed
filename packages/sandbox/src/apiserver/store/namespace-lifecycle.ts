import type { KubeObject } from '../kube-object.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { storageIdOf, type ResourceType } from '../registry/resource-type.js';
import type { Collection } from './collection.js';

/** What the namespace lifecycle needs from the store. */
export interface NamespaceHost {
  registry(): ResourceRegistry;
  collections(): ReadonlyMap<string, Collection>;
  /** A regular delete (finalizers honoured). */
  deleteObject(rt: ResourceType, namespace: string, name: string): unknown;
  /** Removes an object for good, emitting DELETED. */
  removeObject(rt: ResourceType, key: string, namespace: string, last: KubeObject): KubeObject;
}

const NAMESPACES = storageIdOf({ group: '', resource: 'namespaces' });

/**
 * What the namespace controller does on a real cluster, done synchronously: a terminating namespace has
 * its content deleted, and is removed once nothing (no object held by finalizers) is left in it.
 */
export class NamespaceLifecycle {
  constructor(private readonly host: NamespaceHost) {}

  empty(namespace: string): void {
    const collections = this.host.collections();
    for (const rt of this.host.registry().all()) {
      if (!rt.namespaced || rt.virtual) continue;
      const collection = collections.get(storageIdOf(rt));
      if (!collection) continue;
      const [start, end] = collection.namespaceRange(namespace);
      for (const key of collection.sortedKeys().slice(start, end)) {
        const obj = collection.get(key)!;
        if (!obj.metadata?.deletionTimestamp) this.host.deleteObject(rt, namespace, obj.metadata?.name ?? '');
      }
    }
  }

  /** Removes a terminating namespace once it is empty; returns the removed namespace. */
  finishIfEmpty(namespace: string): KubeObject | undefined {
    const collections = this.host.collections();
    const namespaces = collections.get(NAMESPACES);
    const ns = namespaces?.get(namespace);
    if (!ns?.metadata?.deletionTimestamp || (ns.metadata.finalizers ?? []).length > 0) return undefined;
    for (const collection of collections.values()) {
      if (collection === namespaces) continue;
      const [start, end] = collection.namespaceRange(namespace);
      if (end > start) return undefined;
    }
    return this.host.removeObject(this.host.registry().resolve('v1/namespaces'), namespace, '', ns);
  }
}
