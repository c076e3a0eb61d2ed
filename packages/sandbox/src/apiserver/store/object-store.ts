import {
  deepFreeze,
  freezeStored,
  interned,
  shareUnchanged,
  isJsonObject,
  jsonEqual,
  kubeTimestamp,
  thaw,
  type JsonObject,
  type KubeObject,
} from '../kube-object.js';
import { applyPatch, type PatchType } from '../patch/apply-patch.js';
import { crdProblems, crdResourceTypes, crdStatus, syncCrdRegistration } from '../registry/crd-kinds.js';
import type { ResourceRef, ResourceRegistry } from '../registry/resource-registry.js';
import { apiVersionOf, storageIdOf, type FieldGetter, type ResourceType } from '../registry/resource-type.js';
import { parseFieldSelector, type FieldSelector } from '../selectors/field-selector.js';
import { parseLabelSelector } from '../selectors/label-selector.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  notFound,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from '../status/api-status-error.js';
import { parseResourceVersion } from '../http/query-params.js';
import { Collection, storeKey } from './collection.js';
import { EventLog, type StoreEvent, type WatchEventType } from './event-log.js';
import { listPage } from './list-query.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { ServiceAllocator } from './object-meta.js';
import type {
  DeleteOptions,
  DeleteResult,
  ListOptions,
  ListResult,
  StoreListener,
  StoreOptions,
  SubscribeFilter,
  UpdateOptions,
  WriteOptions,
} from './store-types.js';
import {
  checkNamespaceAcceptsContent,
  checkObjectMeta,
  checkPreconditions,
  mergeForUpdate,
  nameMismatch,
  newObjectName,
  requestNamespace,
  specPart,
  stampNew,
  updateTarget,
} from './write-rules.js';

export type {
  StoreOptions,
  ListOptions,
  ListResult,
  WriteOptions,
  UpdateOptions,
  DeleteOptions,
  DeleteResult,
  StoreListener,
  SubscribeFilter,
} from './store-types.js';

const NAMESPACES = storageIdOf({ group: '', resource: 'namespaces' });
const CRDS = storageIdOf({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' });
const UNDELETABLE_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/**
 * The sandbox's etcd and registry in one: typed CRUD over frozen objects with a global resourceVersion,
 * upstream semantics (generation, /status, finalizers, namespaces, CRDs) and a change feed. Reads return
 * shared frozen objects; take a `structuredClone` to edit one. Errors are ApiStatusErrors with the real
 * reasons and codes, for in-process callers as for HTTP clients.
 */
export class ObjectStore {
  readonly log: EventLog;
  private rv = 0;
  private readonly collections = new Map<string, Collection>();
  private readonly listeners = new Set<{ listener: StoreListener; storageId?: string; namespace?: string }>();
  private readonly services = new ServiceAllocator();
  private readonly namespaces = new NamespaceLifecycle({
    registry: () => this.registry,
    collections: () => this.collections,
    deleteObject: (rt, namespace, name) => this.delete(rt, namespace, name),
    removeObject: (rt, key, namespace, last) => this.remove(rt, key, namespace, last),
  });

  constructor(
    readonly registry: ResourceRegistry,
    private readonly options: StoreOptions,
  ) {
    this.log = new EventLog(options.watchWindow);
  }

  /** The RV of the latest write. */
  get currentRevision(): number {
    return this.rv;
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  resolve(ref: ResourceRef): ResourceType {
    return this.registry.resolve(ref);
  }

  /**
   * The fields a field selector may use for this kind (kubernetes pkg/apis/core/v1/conversion.go and
   * apimachinery pkg/runtime/conversion.go DefaultMetaV1FieldSelectorConversion): kinds with their own
   * field labels accept exactly those plus `metadata.name` (and `metadata.namespace` when namespaced);
   * the others accept the two metadata fields.
   */
  fieldGetters(rt: ResourceType): Record<string, FieldGetter> {
    return {
      'metadata.name': (o) => o.metadata?.name ?? '',
      ...(rt.namespaced || Object.keys(rt.fieldLabels).length === 0
        ? { 'metadata.namespace': (o: KubeObject) => o.metadata?.namespace ?? '' }
        : {}),
      ...rt.fieldLabels,
    };
  }

  /** Parses a field selector for this kind, refusing unknown fields with the kind's own message. */
  fieldSelector(rt: ResourceType, input: string | undefined): FieldSelector {
    const custom = Object.keys(rt.fieldLabels).length > 0;
    return parseFieldSelector(input, this.fieldGetters(rt), (label) =>
      custom
        ? `field label not supported: ${label}`
        : `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    );
  }

  get(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const rt = this.resolve(ref);
    return this.served(rt, this.collection(rt).get(storeKey(rt.namespaced ? (namespace ?? '') : '', name)));
  }

  /** Like get, but a missing object is a 404 NotFound. */
  mustGet(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject {
    const rt = this.resolve(ref);
    const found = this.get(rt, namespace, name);
    if (!found) throw notFound(rt, name);
    return found;
  }

  list(ref: ResourceRef, options: ListOptions = {}): ListResult {
    const rt = this.resolve(ref);
    const labelSelector =
      typeof options.labelSelector === 'string' || options.labelSelector === undefined
        ? parseLabelSelector(options.labelSelector)
        : options.labelSelector;
    const fieldSelector =
      typeof options.fieldSelector === 'string' || options.fieldSelector === undefined
        ? this.fieldSelector(rt, options.fieldSelector)
        : options.fieldSelector;
    const exact = this.exactListRevision(options);
    const page = listPage(this.collection(rt), this.log, storageIdOf(rt), this.rv, {
      namespace: rt.namespaced ? (options.namespace ?? '') : '',
      labelSelector,
      fieldSelector,
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.continue ? { continueToken: options.continue } : {}),
      ...(exact !== undefined ? { exactResourceVersion: exact } : {}),
    });
    return {
      resourceType: rt,
      items: page.items.map((o) => this.served(rt, o)!),
      resourceVersion: String(page.resourceVersion),
      ...(page.continueToken ? { continue: page.continueToken } : {}),
      ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
    };
  }

  /**
   * The RV a list must be served at, or undefined for the current state (apiserver pkg/storage/interfaces.go
   * ValidateListOptions and cacher/watch_cache.go): Exact, and the legacy form of a paged list from an RV,
   * read the past; NotOlderThan and RV 0 read now. An RV beyond the store's is the cache's Too large
   * resource version (the real server first waits up to 3 s for it; the twin answers at once).
   */
  private exactListRevision(options: ListOptions): number | undefined {
    const raw = options.resourceVersion ?? '';
    if (options.continue) {
      if (raw !== '' && raw !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue');
      }
      return undefined;
    }
    if (raw === '') return undefined;
    const rv = parseResourceVersion(raw);
    if (rv > this.rv) throw tooLargeResourceVersion(rv, this.rv);
    const match = options.resourceVersionMatch ?? '';
    const legacyExact = match === '' && (options.limit ?? 0) > 0 && rv > 0;
    if (match !== 'Exact' && !legacyExact) return undefined;
    if (rv < this.log.compactedRevision) throw tooOldResourceVersion(rv, this.log.compactedRevision);
    return rv;
  }

  create(ref: ResourceRef, input: KubeObject, options: WriteOptions = {}): KubeObject {
    const rt = this.resolve(ref);
    const obj = thaw(input) as JsonObject;
    const meta = this.metaOf(obj);
    const namespace = requestNamespace(rt, meta, options.namespace);
    const name = newObjectName(rt, meta, this.options.random);
    if (rt.namespaced)
      checkNamespaceAcceptsContent(rt, this.collections.get(NAMESPACES)?.get(namespace), namespace, name);
    const key = storeKey(namespace, name);
    const collection = this.collection(rt);
    if (collection.get(key)) throw alreadyExists(rt, name);

    stampNew(rt, obj, namespace, { random: this.options.random, now: this.options.clock.now() });
    this.applyDefaults(rt, obj, undefined);
    options.admit?.({ operation: 'CREATE', object: obj });
    if (options.dryRun) return deepFreeze(obj);
    return this.commit(rt, key, namespace, obj, 'ADDED', undefined);
  }

  update(ref: ResourceRef, input: KubeObject, options: UpdateOptions = {}): KubeObject {
    const rt = this.resolve(ref);
    const meta = isJsonObject(input.metadata) ? input.metadata : {};
    const { name, namespace } = updateTarget(rt, meta, options);
    const key = storeKey(namespace, name);
    const old = this.collection(rt).get(key);
    if (!old) throw notFound(rt, name);
    const wantRv = meta.resourceVersion;
    if (typeof wantRv === 'string' && wantRv !== '' && wantRv !== old.metadata?.resourceVersion) {
      throw conflict(rt, name);
    }
    // Not copied here: replace copies what it keeps of the caller's object (mergeForUpdate all of it, a
    // /status write its status).
    return this.replace(rt, key, namespace, old, { object: input as JsonObject, owned: false }, options);
  }

  /** Applies a patch (JSON, merge, strategic, or server-side apply, which creates a missing object). */
  patch(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    options: WriteOptions = {},
  ): KubeObject {
    const { rt, ns, key, old } = this.locate(ref, namespace, name);
    if (!old) {
      if (type !== 'apply' || options.subresource) throw notFound(rt, name);
      if (!isJsonObject(body)) throw badRequest('the apply configuration must be an object');
      const meta = isJsonObject(body.metadata) ? body.metadata : {};
      if (meta.name !== undefined && meta.name !== name) {
        throw nameMismatch(meta.name, name);
      }
      return this.create(rt, { ...body, metadata: { ...meta, name } }, { ...options, namespace: ns });
    }
    // Merge-style patches copy only the maps they touch; JSON patches clone the document themselves.
    const patched = applyPatch(rt, old as JsonObject, type, body);
    const meta = isJsonObject(patched.metadata) ? patched.metadata : {};
    if (meta.name !== name) throw nameMismatch(meta.name, name);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== old.metadata?.resourceVersion) {
      throw conflict(rt, name);
    }
    return this.replace(rt, key, ns, old, { object: patched, owned: true }, options);
  }

  delete(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): DeleteResult {
    const { rt, ns, key, old } = this.locate(ref, namespace, name);
    if (!old) throw notFound(rt, name);
    checkPreconditions(rt, name, old, options.preconditions);
    options.admit?.({ operation: 'DELETE', oldObject: old });
    const storageId = storageIdOf(rt);
    if (storageId === NAMESPACES && UNDELETABLE_NAMESPACES.has(name)) {
      throw forbidden(rt, name, 'this namespace may not be deleted');
    }
    if (options.dryRun) return { object: old, removed: true };
    const finalizers = old.metadata?.finalizers ?? [];
    if (finalizers.length > 0 || storageId === NAMESPACES) {
      let current = old;
      if (!old.metadata?.deletionTimestamp) {
        const marked = thaw(old) as JsonObject;
        const meta = this.metaOf(marked);
        meta.deletionTimestamp = kubeTimestamp(this.options.clock.now());
        meta.deletionGracePeriodSeconds = 0;
        if (storageId === NAMESPACES)
          marked.status = { ...(isJsonObject(marked.status) ? marked.status : {}), phase: 'Terminating' };
        current = this.commit(rt, key, ns, marked, 'MODIFIED', old);
      }
      if (storageId === NAMESPACES) {
        // No namespace controller runs here: empty it now, and finish once its finalizing content is gone.
        this.namespaces.empty(name);
        const removed = this.namespaces.finishIfEmpty(name);
        if (removed) return { object: removed, removed: true };
      }
      return { object: current, removed: false };
    }
    return { object: this.remove(rt, key, ns, old), removed: true };
  }

  /** Deletes every matching object; returns what was deleted (or marked for deletion). */
  deleteCollection(ref: ResourceRef, options: ListOptions & DeleteOptions = {}): KubeObject[] {
    const rt = this.resolve(ref);
    const { items } = this.list(rt, { ...options, limit: 0, continue: undefined });
    return items.map(
      (o) =>
        this.delete(rt, o.metadata?.namespace, o.metadata?.name ?? '', {
          dryRun: options.dryRun,
          ...(options.admit ? { admit: options.admit } : {}),
        }).object,
    );
  }

  /** Creates the object, or replaces it unconditionally when it exists (for seeding). */
  put(ref: ResourceRef, obj: KubeObject): KubeObject {
    const rt = this.resolve(ref);
    const ns = rt.namespaced ? (obj.metadata?.namespace ?? 'default') : '';
    const name = obj.metadata?.name ?? '';
    const existing = this.get(rt, ns, name);
    if (!existing) return this.create(rt, obj, { namespace: ns });
    const withoutRv = { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } };
    const main = this.update(rt, withoutRv, { namespace: ns, name });
    if (rt.subresources.includes('status') && obj.status !== undefined) {
      return this.update(
        rt,
        { ...withoutRv, status: obj.status },
        { namespace: ns, name, subresource: 'status' },
      );
    }
    return main;
  }

  /** Changes after `rv` for one resource, or a 410 Expired when the log no longer has them. */
  eventsSince(rt: ResourceType, rv: number): StoreEvent[] {
    const events = this.log.since(rv, storageIdOf(rt));
    if (!events) throw tooOldResourceVersion(rv, this.log.compactedRevision);
    return events;
  }

  /** Calls `listener` synchronously after every committed change (optionally of one resource/namespace). */
  subscribe(listener: StoreListener, filter: SubscribeFilter = {}): () => void {
    const entry = {
      listener,
      ...(filter.resource !== undefined ? { storageId: storageIdOf(this.resolve(filter.resource)) } : {}),
      ...(filter.namespace !== undefined ? { namespace: filter.namespace } : {}),
    };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /** Number of stored objects of a resource. */
  count(ref: ResourceRef): number {
    return this.collection(this.resolve(ref)).size;
  }

  private served(rt: ResourceType, obj: KubeObject | undefined): KubeObject | undefined {
    // Several served versions share storage; objects read through another version report that version.
    if (!obj || obj.apiVersion === apiVersionOf(rt)) return obj;
    return deepFreeze({ ...obj, apiVersion: apiVersionOf(rt) });
  }

  /** Where an object lives (cluster-scoped kinds ignore the namespace) and what is stored there now. */
  private locate(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
  ): { rt: ResourceType; ns: string; key: string; old: KubeObject | undefined } {
    const rt = this.resolve(ref);
    const ns = rt.namespaced ? (namespace ?? '') : '';
    const key = storeKey(ns, name);
    return { rt, ns, key, old: this.collection(rt).get(key) };
  }

  private collection(rt: ResourceType): Collection {
    const id = storageIdOf(rt);
    let c = this.collections.get(id);
    if (!c) {
      const getters = this.fieldGetters(rt);
      c = new Collection(Object.fromEntries(rt.indexedFields.map((f) => [f, getters[f]!])));
      this.collections.set(id, c);
    }
    return c;
  }

  private metaOf(obj: JsonObject): JsonObject {
    if (!isJsonObject(obj.metadata)) obj.metadata = {};
    return obj.metadata as JsonObject;
  }

  private applyDefaults(rt: ResourceType, obj: JsonObject, old: KubeObject | undefined): void {
    if (rt.defaulter) {
      rt.defaulter(
        obj,
        {
          now: this.options.clock.now(),
          random: this.options.random,
          allocateClusterIp: () => this.services.clusterIp(),
          allocateNodePort: () => this.services.nodePort(),
        },
        old,
      );
    }
    if (storageIdOf(rt) === CRDS) {
      const problems = crdProblems(obj);
      if (problems.length > 0)
        throw invalid(rt.kind, rt.group, String(this.metaOf(obj).name ?? ''), problems);
      obj.status = crdStatus(obj, kubeTimestamp(this.options.clock.now()));
    }
    if (storageIdOf(rt) === storageIdOf({ group: '', resource: 'services' })) {
      this.services.reserve((obj.spec as JsonObject | undefined)?.clusterIP);
    }
  }

  /** The shared tail of update and patch: subresource rules, immutable metadata, generation, finalizers. */
  private replace(
    rt: ResourceType,
    key: string,
    namespace: string,
    old: KubeObject,
    input: { readonly object: JsonObject; readonly owned: boolean },
    options: WriteOptions,
  ): KubeObject {
    if (options.subresource === 'status') return this.replaceStatus(rt, key, namespace, old, input, options);
    const result = mergeForUpdate(rt, old, input.object);
    this.applyDefaults(rt, result, old);
    const meta = this.metaOf(result);
    checkObjectMeta(rt, meta); // ValidateObjectMetaAccessorUpdate: labels, annotations, name.
    const oldMeta = old.metadata ?? {};
    const hasStatus = rt.subresources.includes('status');
    if (rt.tracksGeneration && !jsonEqual(specPart(result, hasStatus), specPart(old, hasStatus))) {
      meta.generation = (typeof oldMeta.generation === 'number' ? oldMeta.generation : 0) + 1;
    }
    meta.resourceVersion = oldMeta.resourceVersion;
    options.admit?.({ operation: 'UPDATE', object: result, oldObject: old });
    if (jsonEqual(result, old)) return old;
    if (options.dryRun) return deepFreeze(result);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (meta.deletionTimestamp && finalizers.length === 0 && storageIdOf(rt) !== NAMESPACES) {
      const removed = this.remove(rt, key, namespace, deepFreeze(result));
      if (namespace) this.namespaces.finishIfEmpty(namespace);
      return removed;
    }
    return this.commit(rt, key, namespace, result, 'MODIFIED', old);
  }

  /**
   * A /status write: everything but `status` comes from the stored object (ResetObjectMetaForStatus), so
   * the new object shares the old one's frozen subtrees instead of copying them.
   */
  private replaceStatus(
    rt: ResourceType,
    key: string,
    namespace: string,
    old: KubeObject,
    input: { readonly object: JsonObject; readonly owned: boolean },
    options: WriteOptions,
  ): KubeObject {
    const next = input.object;
    const result: JsonObject = { ...old, metadata: { ...old.metadata } };
    if (next.status === undefined) delete result.status;
    // The store freezes what it keeps: a caller's status is copied first, a patch's is the store's own.
    else result.status = input.owned ? next.status : thaw(next.status);
    options.admit?.({ operation: 'UPDATE', object: result, oldObject: old });
    if (jsonEqual(result.status, old.status)) return old;
    if (options.dryRun) return deepFreeze(result);
    return this.commit(rt, key, namespace, result, 'MODIFIED', old);
  }

  private remove(rt: ResourceType, key: string, namespace: string, last: KubeObject): KubeObject {
    const gone = this.commit(
      rt,
      key,
      namespace,
      thaw(last) as JsonObject,
      'DELETED',
      this.collection(rt).get(key),
    );
    if (storageIdOf(rt) === CRDS) this.dropCustomResources(gone);
    return gone;
  }

  private commit(
    rt: ResourceType,
    key: string,
    namespace: string,
    obj: JsonObject,
    type: WatchEventType,
    prev: KubeObject | undefined,
  ): KubeObject {
    const rv = ++this.rv;
    this.metaOf(obj).resourceVersion = String(rv);
    if (prev) shareUnchanged(obj, prev);
    const frozen = freezeStored(obj) as KubeObject;
    const collection = this.collection(rt);
    if (type === 'DELETED') collection.delete(key);
    else collection.set(key, frozen);
    const storageId = storageIdOf(rt);
    // Each change is kept in the watch history: its key and namespace are one string per object, not per event.
    const event: StoreEvent = {
      type,
      rv,
      storageId,
      resourceType: rt,
      key: interned(key),
      namespace: interned(namespace),
      object: frozen,
      prev,
    };
    this.log.append(event);
    if (storageId === CRDS)
      syncCrdRegistration(this.registry, event.prev, event.type === 'DELETED' ? undefined : event.object);
    for (const l of this.listeners) {
      if (l.storageId !== undefined && l.storageId !== storageId) continue;
      if (l.namespace !== undefined && l.namespace !== namespace) continue;
      try {
        l.listener(event);
      } catch {
        // A listener's failure must not undo a committed write.
      }
    }
    return frozen;
  }

  /** Deleting a CRD deletes its custom resources (each a DELETED event for watchers). */
  private dropCustomResources(crd: KubeObject): void {
    const spec = isJsonObject(crd.spec) ? crd.spec : {};
    const names = isJsonObject(spec.names) ? spec.names : {};
    const id = storageIdOf({ group: String(spec.group ?? ''), resource: String(names.plural ?? '') });
    const collection = this.collections.get(id);
    const types = crdResourceTypes(crd);
    const rt = types[0];
    if (!collection || !rt) return;
    for (const key of [...collection.sortedKeys()]) {
      const obj = collection.get(key)!;
      this.commit(rt, key, obj.metadata?.namespace ?? '', thaw(obj) as JsonObject, 'DELETED', obj);
    }
    this.collections.delete(id);
  }
}
