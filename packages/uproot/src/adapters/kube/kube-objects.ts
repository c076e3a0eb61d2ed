/**
 * Generic object access on top of KubeClient: get (404 → undefined), paged list, create, replace, patch,
 * server-side apply, delete. Objects are plain JSON records.
 */
import {
  keyOf,
  type KubeObject,
  type ListSelector,
  type ObjectKey,
  type ObjectStore,
  type PatchType,
} from '../../engine/ports.js';
import { listAll } from '../../election/kube-http/index.js';
import { CONTENT_TYPES, isKubeStatus, type KubeClient } from './kube-client.js';
import { ResourceResolver, resourcePath } from './resource-paths.js';

export { keyOf, type KubeObject, type ListSelector, type ObjectKey, type PatchType };

/** The field manager uproot writes with (server-side apply and managedFields). */
export const FIELD_MANAGER = 'uproot';

/** The ObjectStore of one cluster, over KubeClient. */
export class KubeObjects implements ObjectStore {
  readonly resolver: ResourceResolver;

  constructor(readonly client: KubeClient) {
    this.resolver = new ResourceResolver(client);
  }

  private async path(ref: ObjectKey, withName = true, subresource?: string): Promise<string> {
    const info = await this.resolver.resolve(ref.apiVersion, ref.kind);
    return resourcePath(info, ref.namespace, withName ? ref.name : undefined, subresource);
  }

  async serverVersion(): Promise<{ readonly gitVersion: string }> {
    const version = await this.client.request<{ gitVersion?: string }>({ method: 'GET', path: '/version' });
    return { gitVersion: version.gitVersion ?? '' };
  }

  async get(ref: ObjectKey, signal?: AbortSignal): Promise<KubeObject | undefined> {
    try {
      return await this.client.request<KubeObject>({ method: 'GET', path: await this.path(ref) }, signal);
    } catch (error) {
      if (isKubeStatus(error, 404)) return undefined;
      throw error;
    }
  }

  async list(
    apiVersion: string,
    kind: string,
    selector: ListSelector = {},
    pageSize = 500,
  ): Promise<KubeObject[]> {
    const info = await this.resolver.resolve(apiVersion, kind);
    const path = resourcePath(info, selector.namespace);
    const { items } = await listAll<KubeObject>(async ({ limit, _continue }) => {
      const page = await this.client.request<{
        items?: KubeObject[];
        metadata?: { continue?: string; resourceVersion?: string };
      }>({
        method: 'GET',
        path,
        query: {
          limit,
          continue: _continue,
          labelSelector: selector.labelSelector,
          fieldSelector: selector.fieldSelector,
        },
      });
      return {
        items: page.items ?? [],
        metadata: { _continue: page.metadata?.continue, resourceVersion: page.metadata?.resourceVersion },
      };
    }, pageSize);
    return items;
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'POST',
      path: await this.path(keyOf(obj), false),
      query: { fieldManager: FIELD_MANAGER },
      body: obj,
    });
  }

  /** PUT: fails with 409 Conflict when obj.metadata.resourceVersion is not the current one. */
  async replace(obj: KubeObject): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'PUT',
      path: await this.path(keyOf(obj)),
      query: { fieldManager: FIELD_MANAGER },
      body: obj,
    });
  }

  async patch(ref: ObjectKey, type: PatchType, patch: unknown): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'PATCH',
      path: await this.path(ref),
      query: { fieldManager: FIELD_MANAGER },
      body: patch,
      contentType:
        type === 'merge'
          ? CONTENT_TYPES.merge
          : type === 'strategic'
            ? CONTENT_TYPES.strategic
            : CONTENT_TYPES.jsonPatch,
    });
  }

  /** Server-side apply (creates the object when missing). */
  async apply(obj: KubeObject, force = true): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'PATCH',
      path: await this.path(keyOf(obj)),
      query: { fieldManager: FIELD_MANAGER, force },
      body: obj,
      contentType: CONTENT_TYPES.apply,
    });
  }

  /** Deletes; with a uid precondition it never deletes a newer object of the same name. 404 is fine. */
  async delete(ref: ObjectKey, preconditions?: { uid?: string; resourceVersion?: string }): Promise<boolean> {
    try {
      await this.client.request({
        method: 'DELETE',
        path: await this.path(ref),
        body: { kind: 'DeleteOptions', apiVersion: 'v1', ...(preconditions ? { preconditions } : {}) },
      });
      return true;
    } catch (error) {
      if (isKubeStatus(error, 404)) return false;
      throw error;
    }
  }
}
