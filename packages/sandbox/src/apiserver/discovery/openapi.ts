import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';
import { openApiV2Json, openApiV2Protobuf } from './openapi-v2.js';

const FIELD_VALIDATION = {
  name: 'fieldValidation',
  in: 'query',
  description:
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields.',
  schema: { type: 'string', uniqueItems: true },
};

function operation(rt: ResourceType, action: string): Record<string, unknown> {
  return {
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: rt.group, version: rt.version, kind: rt.kind },
    parameters: action === 'get' ? [] : [FIELD_VALIDATION],
    responses: { '200': { description: 'OK' } },
  };
}

function pathsFor(rt: ResourceType): Record<string, unknown> {
  const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  const collection = rt.namespaced
    ? `${base}/namespaces/{namespace}/${rt.resource}`
    : `${base}/${rt.resource}`;
  if (rt.virtual) return { [collection]: { post: operation(rt, 'post') } };
  const paths: Record<string, unknown> = {
    [collection]: { post: operation(rt, 'post') },
    [`${collection}/{name}`]: {
      get: operation(rt, 'get'),
      put: operation(rt, 'put'),
      patch: operation(rt, 'patch'),
    },
  };
  for (const sub of rt.subresources) {
    paths[`${collection}/{name}/${sub}`] =
      sub === 'eviction'
        ? { post: operation(rt, 'post') }
        : { put: operation(rt, 'put'), patch: operation(rt, 'patch') };
  }
  return paths;
}

/**
 * The minimal `/openapi/v3` kubectl needs to validate and apply: per group-version documents whose PATCH
 * operations carry the GVK extension and a `fieldValidation` parameter (query_param_verifier_v3.go).
 * Schemas are empty, so kubectl builds strategic merge patches from its compiled-in types.
 */
export class OpenApi {
  private cacheRevision = -1;
  private cacheVersion = '';
  private v2Cache: { revision: number; version: string; json: string; protobuf: Buffer } | undefined;
  private docs = new Map<string, { json: string; hash: string }>();

  constructor(
    private readonly registry: ResourceRegistry,
    /** `info.version` follows the server's `/version` (a twin's control plane changes version). */
    private readonly gitVersion: () => string,
  ) {}

  root(): string {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [key, doc] of this.all())
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
    return JSON.stringify({ paths });
  }

  /** `/openapi/v2` (kubectl 1.27 and 1.28 need it for apply), as protobuf or JSON. */
  v2(format: 'protobuf' | 'json'): Buffer | string {
    const gitVersion = this.gitVersion();
    if (this.v2Cache?.revision !== this.registry.revision || this.v2Cache.version !== gitVersion) {
      const types = this.registry.all();
      this.v2Cache = {
        revision: this.registry.revision,
        version: gitVersion,
        json: openApiV2Json(types, gitVersion),
        protobuf: openApiV2Protobuf(types, gitVersion),
      };
    }
    return format === 'json' ? this.v2Cache.json : this.v2Cache.protobuf;
  }

  /** The document for `api/v1` or `apis/<g>/<v>`, or undefined. */
  groupVersion(key: string): string | undefined {
    return this.all().get(key)?.json;
  }

  private all(): Map<string, { json: string; hash: string }> {
    const gitVersion = this.gitVersion();
    if (this.cacheRevision === this.registry.revision && this.cacheVersion === gitVersion) return this.docs;
    const byGv = new Map<string, ResourceType[]>();
    for (const rt of this.registry.all()) {
      const key = rt.group ? `apis/${apiVersionOf(rt)}` : `api/${rt.version}`;
      byGv.set(key, [...(byGv.get(key) ?? []), rt]);
    }
    this.docs = new Map();
    for (const [key, types] of [...byGv.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const json = JSON.stringify({
        openapi: '3.0.0',
        info: { title: 'Kubernetes', version: gitVersion },
        paths: Object.assign({}, ...types.map(pathsFor)) as Record<string, unknown>,
        components: { schemas: {} },
      });
      this.docs.set(key, {
        json,
        hash: createHash('sha512').update(json).digest('hex').toUpperCase().slice(0, 128),
      });
    }
    this.cacheRevision = this.registry.revision;
    this.cacheVersion = gitVersion;
    return this.docs;
  }
}
