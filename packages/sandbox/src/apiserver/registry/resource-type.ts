import type { KubeObject } from '../kube-object.js';
import type { SmpSchema } from '../patch/patch-schema.js';
import type { TablePrinter } from '../tables/table.js';

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
/** `eviction`: pods only, create only (policy/v1 Eviction; pkg/registry/core/pod/storage/eviction.go). */
export type Subresource = 'status' | 'scale' | 'eviction';

export const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/** Reads a selectable field of an object as a string (field selectors compare strings). */
export type FieldGetter = (obj: KubeObject) => string;

/** How `metadata.name` is validated: most kinds are DNS subdomains; RBAC kinds only forbid `/` and `%`. */
/** The kind's ValidateNameFunc (apimachinery pkg/api/validation/generic.go; RBAC's path segments). */
export type NameRule = 'dns-subdomain' | 'dns-label' | 'dns-1035-label' | 'path-segment';

/**
 * Fills server-side defaults (cluster IPs, phases, update strategies) on every write of the main resource;
 * `old` is the stored object on updates, so allocated values can be carried over.
 */
export type Defaulter = (
  obj: Record<string, unknown>,
  ctx: DefaultingContext,
  old: KubeObject | undefined,
) => void;

export interface DefaultingContext {
  readonly now: number;
  readonly random: () => number;
  /** Allocates the next free ClusterIP (services). */
  allocateClusterIp(): string;
  allocateNodePort(): number;
}

/**
 * One served resource: everything the store, discovery, printing and patching need to know about it. The
 * registry holds one per group/version/resource; built-in kinds are declared in builtin-kinds.ts and
 * custom resources are derived from CRDs at run time.
 */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** Plural, lower case (`daemonsets`). */
  readonly resource: string;
  readonly kind: string;
  readonly listKind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly Verb[];
  readonly subresources: readonly Subresource[];
  /** `metadata.generation` is kept and bumped on changes outside metadata and status. */
  readonly tracksGeneration: boolean;
  /** A custom resource: strategic merge patch answers 415, as on a real server. */
  readonly custom: boolean;
  readonly nameRule: NameRule;
  /** Field selector keys beyond `metadata.name` and `metadata.namespace`. */
  readonly fieldLabels: Readonly<Record<string, FieldGetter>>;
  /** Field labels with an equality index (e.g. pods by `spec.nodeName`). */
  readonly indexedFields: readonly string[];
  readonly patchSchema?: SmpSchema;
  readonly printer?: TablePrinter;
  readonly defaulter?: Defaulter;
  /** Not stored: create answers computed from the request (access reviews). */
  readonly virtual?: boolean;
}

export function apiVersionOf(gv: { readonly group: string; readonly version: string }): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/** Objects of all served versions of a group/resource share one collection. */
/** group → resource → storage id: one string per resource, however many events and requests carry it. */
const storageIds = new Map<string, Map<string, string>>();

export function storageIdOf(gr: { readonly group: string; readonly resource: string }): string {
  let byResource = storageIds.get(gr.group);
  if (!byResource) storageIds.set(gr.group, (byResource = new Map()));
  let id = byResource.get(gr.resource);
  if (id === undefined) byResource.set(gr.resource, (id = `${gr.group}/${gr.resource}`));
  return id;
}

export function gvrString(gvr: GroupVersionResource): string {
  return `${apiVersionOf(gvr)}/${gvr.resource}`;
}

/** Builds a ResourceType with the defaults most kinds share. */
export function defineResource(
  spec: Pick<ResourceType, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'> & Partial<ResourceType>,
): ResourceType {
  return {
    listKind: `${spec.kind}List`,
    singular: spec.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    tracksGeneration: false,
    custom: false,
    nameRule: 'dns-subdomain',
    fieldLabels: {},
    indexedFields: [],
    ...spec,
  };
}
