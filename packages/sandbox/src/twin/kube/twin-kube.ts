import type { Clock } from 'uproot';
import type { ObjectStore, StoreListener } from '../../apiserver/store/object-store.js';
import type { StoreEvent } from '../../apiserver/store/event-log.js';
import { clone, type KubeObject } from './kube-types.js';
import { evictPod, type EvictionAnswer } from '../../apiserver/policy/evict.js';

/**
 * The twin's in-process view of an API server's store: the same objects, validation and change feed HTTP
 * clients see, without the wire (the twin plays the cluster's own components, which live next to etcd).
 * Adds the read-modify-write helpers controllers need: `mutate` retries a 409 Conflict like client-go's
 * RetryOnConflict.
 */

export const R = {
  namespaces: 'v1/namespaces',
  nodes: 'v1/nodes',
  pods: 'v1/pods',
  services: 'v1/services',
  events: 'v1/events',
  configmaps: 'v1/configmaps',
  secrets: 'v1/secrets',
  serviceaccounts: 'v1/serviceaccounts',
  persistentvolumes: 'v1/persistentvolumes',
  persistentvolumeclaims: 'v1/persistentvolumeclaims',
  leases: 'coordination.k8s.io/v1/leases',
  daemonsets: 'apps/v1/daemonsets',
  jobs: 'batch/v1/jobs',
  roles: 'rbac.authorization.k8s.io/v1/roles',
  rolebindings: 'rbac.authorization.k8s.io/v1/rolebindings',
  clusterroles: 'rbac.authorization.k8s.io/v1/clusterroles',
  clusterrolebindings: 'rbac.authorization.k8s.io/v1/clusterrolebindings',
  storageclasses: 'storage.k8s.io/v1/storageclasses',
  poddisruptionbudgets: 'policy/v1/poddisruptionbudgets',
  deployments: 'apps/v1/deployments',
  csidrivers: 'storage.k8s.io/v1/csidrivers',
  helmcharts: 'helm.cattle.io/v1/helmcharts',
  provisioningClusters: 'provisioning.cattle.io/v1/clusters',
} as const;

export type ResourceRefString = (typeof R)[keyof typeof R] | string;

/** A committed change as controllers see it (objects are frozen: clone before editing). */
export interface TwinEvent {
  readonly type: StoreEvent['type'];
  readonly namespace: string;
  readonly object: KubeObject;
  readonly prev: KubeObject | undefined;
}

function reasonOf(error: unknown): string | undefined {
  const status = (error as { status?: { reason?: unknown } } | undefined)?.status;
  return typeof status?.reason === 'string' ? status.reason : undefined;
}

export function isConflict(error: unknown): boolean {
  return reasonOf(error) === 'Conflict';
}

export function isNotFound(error: unknown): boolean {
  return reasonOf(error) === 'NotFound';
}

export function isAlreadyExists(error: unknown): boolean {
  return reasonOf(error) === 'AlreadyExists';
}

/** Maps a manifest's apiVersion + kind to the resource the store serves (for applying rendered objects). */
export function resourceForKind(store: ObjectStore, apiVersion: string, kind: string): string | undefined {
  const rt = store.registry.byKind(apiVersion, kind);
  if (!rt) return undefined;
  return rt.group ? `${rt.group}/${rt.version}/${rt.resource}` : `${rt.version}/${rt.resource}`;
}

export class TwinKube {
  constructor(
    readonly store: ObjectStore,
    readonly clock: Clock,
  ) {}

  get(ref: ResourceRefString, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(ref, namespace, name) as KubeObject | undefined;
  }

  list(
    ref: ResourceRefString,
    options: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
  ): KubeObject[] {
    return this.store.list(ref, options).items as KubeObject[];
  }

  create(ref: ResourceRefString, obj: KubeObject): KubeObject {
    return this.store.create(ref, obj) as KubeObject;
  }

  /** Creates the object unless it exists; returns what is stored. */
  ensure(ref: ResourceRefString, obj: KubeObject): KubeObject {
    const existing = this.get(ref, obj.metadata?.namespace, obj.metadata?.name ?? '');
    if (existing) return existing;
    try {
      return this.create(ref, obj);
    } catch (error) {
      if (isAlreadyExists(error)) return this.get(ref, obj.metadata?.namespace, obj.metadata?.name ?? '')!;
      throw error;
    }
  }

  /** Creates or replaces the whole object (spec and, where there is one, status), like seeding. */
  put(ref: ResourceRefString, obj: KubeObject): KubeObject {
    return this.store.put(ref, obj) as KubeObject;
  }

  /**
   * Read-modify-write: `edit` gets a mutable copy and returns it (or undefined to skip the write). Retries on
   * conflict; returns the stored object, or undefined when it does not exist.
   */
  mutate(
    ref: ResourceRefString,
    namespace: string | undefined,
    name: string,
    edit: (draft: KubeObject) => KubeObject | undefined,
    options: { status?: boolean } = {},
  ): KubeObject | undefined {
    for (let attempt = 0; ; attempt++) {
      const current = this.get(ref, namespace, name);
      if (!current) return undefined;
      const next = edit(clone(current));
      if (!next) return current;
      try {
        return this.store.update(ref, next, {
          ...(namespace ? { namespace } : {}),
          name,
          ...(options.status ? { subresource: 'status' as const } : {}),
        }) as KubeObject;
      } catch (error) {
        if (!isConflict(error) || attempt >= 5) throw error;
      }
    }
  }

  mutateStatus(
    ref: ResourceRefString,
    namespace: string | undefined,
    name: string,
    edit: (draft: KubeObject) => KubeObject | undefined,
  ): KubeObject | undefined {
    return this.mutate(ref, namespace, name, edit, { status: true });
  }

  mergePatch(
    ref: ResourceRefString,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    status = false,
  ): KubeObject {
    return this.store.patch(
      ref,
      namespace,
      name,
      'merge',
      patch,
      status ? { subresource: 'status' } : {},
    ) as KubeObject;
  }

  delete(ref: ResourceRefString, namespace: string | undefined, name: string): boolean {
    try {
      this.store.delete(ref, namespace, name);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * POST pods/<name>/eviction in process (apiserver/policy/evict.ts): the PDB check and the delete the HTTP
   * subresource does. Throws its ApiStatusErrors (404, 429 with the DisruptionBudget cause, 403); a 500 for
   * overlapping budgets comes back as `multiple-budgets`.
   */
  evict(namespace: string, name: string, options: { dryRun?: boolean } = {}): EvictionAnswer {
    return evictPod(this.store, namespace, name, { now: this.clock.now(), ...options });
  }

  /** Subscribes to committed changes of one resource. The listener runs synchronously inside the write. */
  watch(ref: ResourceRefString, listener: (event: TwinEvent) => void, namespace?: string): () => void {
    const adapter: StoreListener = (event) => listener(event as unknown as TwinEvent);
    return this.store.subscribe(adapter, {
      resource: ref,
      ...(namespace !== undefined ? { namespace } : {}),
    });
  }
}
