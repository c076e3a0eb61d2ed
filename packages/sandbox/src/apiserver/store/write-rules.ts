import type { Random } from 'uproot';
import { isJsonObject, kubeTimestamp, thaw, type JsonObject, type KubeObject } from '../kube-object.js';
import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';
import {
  badRequest,
  conflict,
  forbidden,
  invalid,
  notFound,
  type ApiStatusError,
} from '../status/api-status-error.js';
import { objectMetaCauses } from './meta-validation.js';
import { generatedName, randomUid } from './object-meta.js';

/** The pure parts of the API server's write path (what rest.BeforeCreate/BeforeUpdate enforce). */

const SERVER_SET_ON_CREATE = [
  'resourceVersion',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
  'managedFields',
];
const IMMUTABLE_ON_UPDATE = [
  'name',
  'namespace',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
];

export function nameMismatch(bodyName: unknown, urlName: string): ApiStatusError {
  return badRequest(
    `the name of the object (${String(bodyName)}) does not match the name on the URL (${urlName})`,
  );
}

/** Stamps a new object: type, namespace, uid, creationTimestamp, generation; drops what clients may not set. */
export function stampNew(
  rt: ResourceType,
  obj: JsonObject,
  namespace: string,
  ctx: { random: Random; now: number },
): void {
  const meta = obj.metadata as JsonObject;
  obj.apiVersion = apiVersionOf(rt);
  obj.kind = rt.kind;
  if (rt.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  meta.uid = randomUid(ctx.random);
  meta.creationTimestamp = kubeTimestamp(ctx.now);
  for (const k of SERVER_SET_ON_CREATE) delete meta[k];
  if (rt.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
}

/**
 * The object an update of the main resource stores: the client's object, except that the status of kinds
 * with a /status subresource and the system-owned metadata stay as stored. Returns a mutable copy.
 */
export function mergeForUpdate(rt: ResourceType, old: KubeObject, next: JsonObject): JsonObject {
  // `next` may share frozen subtrees with `old` (copy-on-write patches); defaulters need it mutable.
  const result = thaw(next);
  if (rt.subresources.includes('status')) {
    if (old.status === undefined) delete result.status;
    else result.status = thaw(old.status);
  }
  if (!isJsonObject(result.metadata)) result.metadata = {};
  const meta = result.metadata as JsonObject;
  const oldMeta = old.metadata ?? {};
  result.apiVersion = old.apiVersion;
  result.kind = rt.kind;
  for (const k of IMMUTABLE_ON_UPDATE) {
    if (oldMeta[k] === undefined) delete meta[k];
    else meta[k] = oldMeta[k];
  }
  delete meta.managedFields;
  delete meta.selfLink;
  return result;
}

/** What generation tracks: everything outside metadata (and status, when it has its own subresource). */
export function specPart(obj: KubeObject, hasStatus: boolean): JsonObject {
  const rest: JsonObject = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (hasStatus) delete rest.status;
  return rest;
}

/** DeleteOptions.preconditions, with the upstream messages. */
export function checkPreconditions(
  rt: ResourceType,
  name: string,
  old: KubeObject,
  pre: { readonly uid?: string; readonly resourceVersion?: string } | undefined,
): void {
  if (pre?.uid && pre.uid !== old.metadata?.uid) {
    throw conflict(
      rt,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata?.uid ?? ''}`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== old.metadata?.resourceVersion) {
    throw conflict(
      rt,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata?.resourceVersion ?? ''}`,
    );
  }
}

const NAMESPACE_MISMATCH =
  'the namespace of the provided object does not match the namespace sent on the request';

/** The namespace a create goes to: the request's, else the object's, else `default`. */
export function requestNamespace(rt: ResourceType, meta: JsonObject, requested: string | undefined): string {
  if (!rt.namespaced) return '';
  const own = typeof meta.namespace === 'string' && meta.namespace ? meta.namespace : undefined;
  if (requested && own && requested !== own) throw badRequest(NAMESPACE_MISMATCH);
  return requested || own || 'default';
}

/**
 * The name of a new object (expanding generateName, upstream's SimpleNameGenerator), then the whole
 * ObjectMeta validated as BeforeCreate does; sets the name on `meta`.
 */
export function newObjectName(rt: ResourceType, meta: JsonObject, random: Random): string {
  const hasName = typeof meta.name === 'string' && meta.name !== '';
  if (!hasName && typeof meta.generateName === 'string' && meta.generateName) {
    meta.name = generatedName(meta.generateName, random);
  }
  checkObjectMeta(rt, meta);
  return meta.name as string;
}

/** A 422 with every metadata cause (meta-validation.ts), before anything is stored. */
export function checkObjectMeta(rt: ResourceType, meta: JsonObject): void {
  const causes = objectMetaCauses(meta, rt.nameRule);
  if (causes.length > 0) {
    throw invalid(rt.kind, rt.group, typeof meta.name === 'string' ? meta.name : '', causes);
  }
}

/** Creating into a missing namespace is 404; into a terminating one, 403 (NamespaceLifecycle admission). */
export function checkNamespaceAcceptsContent(
  rt: ResourceType,
  ns: KubeObject | undefined,
  namespace: string,
  name: string,
): void {
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if (ns.metadata?.deletionTimestamp) {
    throw forbidden(
      rt,
      name,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    );
  }
}

/** Which object an update addresses: the URL's name and namespace, which must agree with the body's. */
export function updateTarget(
  rt: ResourceType,
  meta: JsonObject,
  options: { readonly name?: string; readonly namespace?: string },
): { name: string; namespace: string } {
  if (options.name !== undefined && meta.name !== undefined && meta.name !== options.name) {
    throw nameMismatch(meta.name, options.name);
  }
  const own = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (rt.namespaced && options.namespace && own && own !== options.namespace)
    throw badRequest(NAMESPACE_MISMATCH);
  return {
    name: options.name ?? (typeof meta.name === 'string' ? meta.name : ''),
    namespace: rt.namespaced ? (options.namespace ?? own) : '',
  };
}
