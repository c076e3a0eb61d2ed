import type { ResourceRegistry } from '../registry/resource-registry.js';
import { apiVersionOf, type ResourceType, type Subresource } from '../registry/resource-type.js';

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

function subresourceKind(
  rt: ResourceType,
  sub: Subresource,
): { group: string; version: string; kind: string } {
  if (sub === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  // pods/eviction takes a policy/v1 Eviction; kubectl drain finds it by this group and version
  // (kubectl pkg/drain/drain.go CheckEvictionSupport).
  if (sub === 'eviction') return { group: 'policy', version: 'v1', kind: 'Eviction' };
  return { group: rt.group, version: rt.version, kind: rt.kind };
}

function subresourceVerbs(sub: Subresource): string[] {
  return sub === 'eviction' ? ['create'] : SUBRESOURCE_VERBS;
}

function aggregatedResource(rt: ResourceType): Record<string, unknown> {
  return {
    resource: rt.resource,
    responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: [...rt.verbs],
    ...(rt.shortNames.length ? { shortNames: [...rt.shortNames] } : {}),
    ...(rt.categories.length ? { categories: [...rt.categories] } : {}),
    ...(rt.subresources.length
      ? {
          subresources: rt.subresources.map((sub) => ({
            subresource: sub,
            responseKind: subresourceKind(rt, sub),
            verbs: subresourceVerbs(sub),
          })),
        }
      : {}),
  };
}

function legacyResources(rt: ResourceType): Record<string, unknown>[] {
  const main = {
    name: rt.resource,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: [...rt.verbs],
    ...(rt.shortNames.length ? { shortNames: [...rt.shortNames] } : {}),
    ...(rt.categories.length ? { categories: [...rt.categories] } : {}),
  };
  return [
    main,
    ...rt.subresources.map((sub) => ({
      name: `${rt.resource}/${sub}`,
      singularName: '',
      namespaced: rt.namespaced,
      ...(sub === 'scale' || sub === 'eviction'
        ? { group: subresourceKind(rt, sub).group, version: subresourceKind(rt, sub).version }
        : {}),
      kind: subresourceKind(rt, sub).kind,
      verbs: subresourceVerbs(sub),
    })),
  ];
}

/**
 * Discovery documents generated from the registry and cached per registry revision, so CRDs appear and
 * disappear as they are created and deleted.
 */
export class Discovery {
  private cacheRevision = -1;
  private cache = new Map<string, string>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly serverAddress: () => string,
  ) {}

  /** `/api` (core) or `/apis` (everything else) as an aggregated APIGroupDiscoveryList of `version` (v2, v2beta1). */
  aggregated(prefix: 'api' | 'apis', version: 'v2' | 'v2beta1'): string {
    return this.cached(`agg:${prefix}:${version}`, () => {
      const groups = this.registry.groups().filter((g) => (prefix === 'api' ? g.name === '' : g.name !== ''));
      return JSON.stringify({
        kind: 'APIGroupDiscoveryList',
        apiVersion: `apidiscovery.k8s.io/${version}`,
        metadata: {},
        items: groups.map((g) => ({
          metadata: { name: g.name, creationTimestamp: null },
          versions: g.versions.map((v) => ({
            version: v.version,
            resources: v.resources.filter((r) => !r.virtual || r.verbs.length > 0).map(aggregatedResource),
            freshness: 'Current',
          })),
        })),
      });
    });
  }

  apiVersions(): string {
    return JSON.stringify({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
    });
  }

  apiGroupList(): string {
    return this.cached('groups', () =>
      JSON.stringify({
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: this.registry
          .groups()
          .filter((g) => g.name !== '')
          .map((g) =>
            this.groupBody(
              g.name,
              g.versions.map((v) => v.version),
            ),
          ),
      }),
    );
  }

  /** `/apis/<group>`, or undefined when the group is not served. */
  apiGroup(group: string): string | undefined {
    const g = this.registry.groups().find((x) => x.name === group);
    if (!g) return undefined;
    return JSON.stringify({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...this.groupBody(
        group,
        g.versions.map((v) => v.version),
      ),
    });
  }

  /** `/api/v1` or `/apis/<group>/<version>`, or undefined when not served. */
  resourceList(group: string, version: string): string | undefined {
    return (
      this.cached(`res:${group}/${version}`, () => {
        const v = this.registry
          .groups()
          .find((x) => x.name === group)
          ?.versions.find((x) => x.version === version);
        if (!v) return '';
        return JSON.stringify({
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: apiVersionOf({ group, version }),
          resources: v.resources.flatMap(legacyResources),
        });
      }) || undefined
    );
  }

  private groupBody(name: string, versions: string[]): Record<string, unknown> {
    const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions: entries, preferredVersion: entries[0] };
  }

  private cached(key: string, build: () => string): string {
    if (this.cacheRevision !== this.registry.revision) {
      this.cache = new Map();
      this.cacheRevision = this.registry.revision;
    }
    let value = this.cache.get(key);
    if (value === undefined) {
      value = build();
      this.cache.set(key, value);
    }
    return value;
  }
}
