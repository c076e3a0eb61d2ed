import { ApiStatusError } from '../status/api-status-error.js';
import type { GroupVersionResource, ResourceType } from './resource-type.js';
import { apiVersionOf } from './resource-type.js';

export interface GroupVersionInfo {
  readonly version: string;
  readonly resources: readonly ResourceType[];
}

export interface GroupInfo {
  readonly name: string;
  /** Preferred version first. */
  readonly versions: readonly GroupVersionInfo[];
}

/** A reference to a resource: a GVR, or a string such as `nodes`, `v1/nodes`, `apps/v1/daemonsets`, `leases.coordination.k8s.io`. */
export type ResourceRef = GroupVersionResource | string;

const VERSION_RE = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Kubernetes version priority: GA before beta before alpha, higher numbers first (v2 > v1 > v1beta2). */
export function compareKubeVersions(a: string, b: string): number {
  const ma = VERSION_RE.exec(a);
  const mb = VERSION_RE.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : a.localeCompare(b);
  const stage = (m: RegExpExecArray): number => (m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1);
  return stage(mb) - stage(ma) || Number(mb[1]) - Number(ma[1]) || Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

function notServed(what: string): ApiStatusError {
  return new ApiStatusError({
    message: `the server could not find the requested resource (${what})`,
    reason: 'NotFound',
    details: {},
    code: 404,
  });
}

/**
 * The kinds the server serves. Discovery, OpenAPI and routing read it; CRDs extend it at run time, so
 * listeners (discovery caches) hear about every change.
 */
export class ResourceRegistry {
  private readonly types = new Map<string, ResourceType>();
  private readonly groupOrder: string[] = [];
  private readonly listeners = new Set<() => void>();
  private rev = 0;

  /** Increases on every change; caches key on it. */
  get revision(): number {
    return this.rev;
  }

  add(type: ResourceType): void {
    this.types.set(`${apiVersionOf(type)}/${type.resource}`, type);
    if (!this.groupOrder.includes(type.group)) this.groupOrder.push(type.group);
    this.changed();
  }

  remove(gvr: GroupVersionResource): boolean {
    const removed = this.types.delete(`${apiVersionOf(gvr)}/${gvr.resource}`);
    if (removed) this.changed();
    return removed;
  }

  get(gvr: GroupVersionResource): ResourceType | undefined {
    return this.types.get(`${apiVersionOf(gvr)}/${gvr.resource}`);
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** All served versions of a group/resource, preferred first. */
  versionsOf(group: string, resource: string): ResourceType[] {
    return this.all()
      .filter((t) => t.group === group && t.resource === resource)
      .sort((a, b) => compareKubeVersions(a.version, b.version));
  }

  /** Resolves a ResourceRef; throws a 404 Status when nothing matches. */
  resolve(ref: ResourceRef): ResourceType {
    const found = this.tryResolve(ref);
    if (!found) throw notServed(typeof ref === 'string' ? ref : `${apiVersionOf(ref)}/${ref.resource}`);
    return found;
  }

  tryResolve(ref: ResourceRef): ResourceType | undefined {
    if (typeof ref !== 'string') return this.get(ref);
    const parts = ref.split('/');
    if (parts.length === 3) return this.get({ group: parts[0]!, version: parts[1]!, resource: parts[2]! });
    if (parts.length === 2) return this.get({ group: '', version: parts[0]!, resource: parts[1]! });
    const dot = ref.indexOf('.');
    if (dot > 0) return this.versionsOf(ref.slice(dot + 1), ref.slice(0, dot))[0];
    const core = this.versionsOf('', ref)[0];
    if (core) return core;
    return this.all().find((t) => t.resource === ref || t.singular === ref || t.shortNames.includes(ref));
  }

  /** The type serving `apiVersion` + `kind` (for manifests and access reviews). */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.all().find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  groups(): GroupInfo[] {
    const out: GroupInfo[] = [];
    for (const name of this.groupOrder) {
      const byVersion = new Map<string, ResourceType[]>();
      for (const t of this.types.values()) {
        if (t.group !== name) continue;
        const list = byVersion.get(t.version) ?? [];
        list.push(t);
        byVersion.set(t.version, list);
      }
      if (byVersion.size === 0) continue;
      const versions = [...byVersion.keys()]
        .sort(compareKubeVersions)
        .map((version) => ({ version, resources: byVersion.get(version)! }));
      out.push({ name, versions });
    }
    return out;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.rev++;
    for (const l of this.listeners) l();
  }
}
