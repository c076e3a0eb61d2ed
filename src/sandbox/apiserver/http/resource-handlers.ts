import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../../clock/index.js';
import { admitNodeRestriction } from '../admission/node-restriction.js';
import { reviewAccess } from '../auth/access-review.js';
import type { UserInfo } from '../auth/identity.js';
import type { RbacAuthorizer } from '../auth/rbac-authorizer.js';
import { isJsonObject, toJson, type KubeObject } from '../kube-object.js';
import { patchTypeFor } from '../patch/apply-patch.js';
import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';
import { parseFieldSelector } from '../selectors/field-selector.js';
import { parseLabelSelector } from '../selectors/label-selector.js';
import { badRequest, invalid, methodNotAllowed, successStatus } from '../status/api-status-error.js';
import type { ObjectStore } from '../store/object-store.js';
import type { Admit } from '../store/store-types.js';
import { defaultPrinter } from '../tables/other-printers.js';
import { rowJson, tableJson } from '../tables/table.js';
import type { WatchHub, WatchStart } from '../watch/watch-hub.js';
import { decodeBody, readBody } from './body.js';
import { chooseRendering, type MediaRange, type Rendering } from './negotiation.js';
import { goQuote, listParams, parseResourceVersion, type ListParams } from './query-params.js';
import type { RequestInfo } from './request-info.js';
import { sendJson } from './respond.js';
import { handleScale } from './scale.js';

export interface HandlerContext {
  readonly store: ObjectStore;
  readonly watches: WatchHub;
  readonly clock: Clock;
  readonly authorizer: RbacAuthorizer;
  /** Checks one more permission mid-request (server-side apply that creates needs `create`). */
  authorize(info: RequestInfo, user: UserInfo, verb: string): void;
}

export interface ApiRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly info: RequestInfo;
  readonly query: URLSearchParams;
  readonly rt: ResourceType;
  readonly user: UserInfo;
  readonly accept: readonly MediaRange[];
}

function dryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) throw badRequest(`Invalid dry run value: ${values.join(',')}`);
  return values.length > 0;
}

/** The admission chain for this request's writes (NodeRestriction; RBAC has already allowed the verb). */
function admission(ctx: HandlerContext, a: ApiRequest): Admit {
  return (change) =>
    admitNodeRestriction(
      {
        user: a.user,
        operation: change.operation,
        resource: { group: a.rt.group, resource: a.rt.resource },
        subresource: a.info.subresource,
        namespace: a.info.namespace,
        name: a.info.name || (change.operation === 'CREATE' ? '' : (change.oldObject?.metadata?.name ?? '')),
        ...(change.object ? { object: change.object as KubeObject } : {}),
        ...(change.oldObject ? { oldObject: change.oldObject } : {}),
      },
      { pod: (namespace, name) => ctx.store.get(PODS, namespace, name) },
    );
}

const PODS = { group: '', version: 'v1', resource: 'pods' };

function renderOne(ctx: HandlerContext, rt: ResourceType, obj: KubeObject, rendering: Rendering): string {
  if (rendering.kind === 'object') return toJson(obj);
  if (rendering.kind === 'metadata') {
    return JSON.stringify({
      kind: 'PartialObjectMetadata',
      apiVersion: rendering.apiVersion,
      metadata: obj.metadata ?? {},
    });
  }
  const printer = rt.printer ?? defaultPrinter;
  const row = rowJson(printer, obj, ctx.clock.now(), rendering.include, rendering.apiVersion);
  return tableJson(printer, [row], rendering.apiVersion, {
    resourceVersion: obj.metadata?.resourceVersion ?? '',
  });
}

async function body(a: ApiRequest): Promise<unknown> {
  return decodeBody(await readBody(a.req), a.req.headers['content-type']);
}

function checkApiVersion(rt: ResourceType, obj: unknown): void {
  if (!isJsonObject(obj)) throw badRequest('the request body must be a JSON object');
  const v = obj.apiVersion;
  if (typeof v === 'string' && v !== '' && v !== apiVersionOf(rt)) {
    throw badRequest(
      `the API version in the data (${v}) does not match the expected API version (${apiVersionOf(rt)})`,
    );
  }
  if (typeof obj.kind === 'string' && obj.kind !== '' && obj.kind !== rt.kind) {
    throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${rt.kind})`);
  }
}

export function handleGet(ctx: HandlerContext, a: ApiRequest): void {
  const obj = ctx.store.mustGet(a.rt, a.info.namespace, a.info.name);
  sendJson(a.res, 200, renderOne(ctx, a.rt, obj, chooseRendering(a.accept, a.query.get('includeObject'))));
}

export function handleList(ctx: HandlerContext, a: ApiRequest): void {
  const { rt } = a;
  const p = listParams(a.query);
  const result = ctx.store.list(rt, {
    namespace: a.info.namespace,
    labelSelector: p.labelSelector || undefined,
    fieldSelector: p.fieldSelector || undefined,
    ...(p.limit > 0 ? { limit: p.limit } : {}),
    ...(p.continue ? { continue: p.continue } : {}),
    ...(p.resourceVersion ? { resourceVersion: p.resourceVersion } : {}),
    ...(p.resourceVersionMatch ? { resourceVersionMatch: p.resourceVersionMatch } : {}),
  });
  const listMeta = {
    resourceVersion: result.resourceVersion,
    ...(result.continue ? { continue: result.continue } : {}),
  };
  const rendering = chooseRendering(a.accept, a.query.get('includeObject'));
  let json: string;
  if (rendering.kind === 'table') {
    const printer = rt.printer ?? defaultPrinter;
    const now = ctx.clock.now();
    const rows = result.items.map((o) => rowJson(printer, o, now, rendering.include, rendering.apiVersion));
    json = tableJson(printer, rows, rendering.apiVersion, listMeta);
  } else if (rendering.kind === 'metadata') {
    json = JSON.stringify({
      kind: 'PartialObjectMetadataList',
      apiVersion: rendering.apiVersion,
      metadata: listMeta,
      items: result.items.map((o) => ({
        kind: 'PartialObjectMetadata',
        apiVersion: rendering.apiVersion,
        metadata: o.metadata,
      })),
    });
  } else {
    json = `{"kind":${JSON.stringify(rt.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(rt))},"metadata":${JSON.stringify(listMeta)},"items":[${result.items.map(toJson).join(',')}]}`;
  }
  sendJson(a.res, 200, json);
}

/**
 * Where a watch starts (apimachinery internalversion SetListOptionsDefaults with WatchList on, and the
 * cacher): without sendInitialEvents, RV "" or "0" replays the current state and anything else resumes
 * after that RV; sendInitialEvents=true replays the state (then, with bookmarks, one BOOKMARK annotated
 * `k8s.io/initial-events-end`), false starts from now.
 */
function watchStart(rt: ResourceType, p: ListParams): WatchStart {
  let rv: number;
  try {
    rv = parseResourceVersion(p.resourceVersion);
  } catch {
    // The cacher's ParseResourceVersion error reaches the client through storage InterpretWatchError: a 422.
    throw invalid(rt.resource, rt.group, '', [
      {
        field: 'resourceVersion',
        message: `Invalid value: ${goQuote(p.resourceVersion)}: strconv.ParseUint: parsing ${goQuote(p.resourceVersion)}: invalid syntax`,
      },
    ]);
  }
  if (p.sendInitialEvents === true)
    return { from: 'now-with-state', initialEventsEnd: p.allowWatchBookmarks };
  if (p.sendInitialEvents === false) return rv === 0 ? { from: 'now' } : { from: 'rv', rv };
  return rv === 0 ? { from: 'now-with-state', initialEventsEnd: false } : { from: 'rv', rv };
}

export function handleWatch(ctx: HandlerContext, a: ApiRequest): void {
  const { rt, query, info } = a;
  const p = listParams(query, true);
  let fieldSelector = p.fieldSelector;
  // Watching one object by URL (`…/watch/…/pods/x`) is a watch with a name selector.
  if (info.parts[1])
    fieldSelector = [fieldSelector, `metadata.name=${info.parts[1]}`].filter(Boolean).join(',');
  const start = watchStart(rt, p);
  ctx.watches.open(
    {
      resourceType: rt,
      namespace: info.namespace,
      labelSelector: parseLabelSelector(p.labelSelector || undefined),
      fieldSelector: parseFieldSelector(fieldSelector, ctx.store.fieldGetters(rt)),
      rendering: chooseRendering(a.accept, query.get('includeObject')),
      allowBookmarks: p.allowWatchBookmarks,
      ...(p.timeoutSeconds !== undefined && p.timeoutSeconds > 0
        ? { timeoutMs: p.timeoutSeconds * 1000 }
        : {}),
    },
    start,
    a.res,
  );
}

export async function handleCreate(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const input = await body(a);
  if (a.rt.virtual) {
    const review = reviewAccess(ctx.authorizer, a.rt.kind, input, a.user, a.info.namespace);
    sendJson(a.res, 201, JSON.stringify(review));
    return;
  }
  checkApiVersion(a.rt, input);
  const created = ctx.store.create(a.rt, input as KubeObject, {
    namespace: a.info.namespace,
    dryRun: dryRun(a.query),
    admit: admission(ctx, a),
  });
  sendJson(a.res, 201, toJson(created));
}

export async function handleUpdate(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  if (a.info.subresource === 'scale') return handleScale(ctx, a, await body(a));
  const input = await body(a);
  checkApiVersion(a.rt, input);
  const updated = ctx.store.update(a.rt, input as KubeObject, {
    namespace: a.info.namespace,
    name: a.info.name,
    dryRun: dryRun(a.query),
    admit: admission(ctx, a),
    ...(a.info.subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  sendJson(a.res, 200, toJson(updated));
}

export async function handlePatch(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const type = patchTypeFor(a.req.headers['content-type'], a.rt);
  const patch = await body(a);
  if (a.info.subresource === 'scale') return handleScale(ctx, a, patch, type);
  const exists = ctx.store.get(a.rt, a.info.namespace, a.info.name) !== undefined;
  if (type === 'apply' && !exists) ctx.authorize(a.info, a.user, 'create');
  const patched = ctx.store.patch(a.rt, a.info.namespace, a.info.name, type, patch, {
    dryRun: dryRun(a.query),
    admit: admission(ctx, a),
    ...(a.info.subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  sendJson(a.res, exists ? 200 : 201, toJson(patched));
}

interface DeleteBody {
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly dryRun?: string[];
}

async function deleteOptions(a: ApiRequest): Promise<DeleteBody> {
  const raw = await readBody(a.req);
  if (raw.length === 0 || raw.toString('utf8').trim() === '') return {};
  const parsed = decodeBody(raw, a.req.headers['content-type'] ?? 'application/json');
  return isJsonObject(parsed) ? (parsed as DeleteBody) : {};
}

export async function handleDelete(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  if (a.info.subresource) throw methodNotAllowed();
  const options = await deleteOptions(a);
  const isDryRun = dryRun(a.query) || (options.dryRun ?? []).includes('All');
  const result = ctx.store.delete(a.rt, a.info.namespace, a.info.name, {
    dryRun: isDryRun,
    admit: admission(ctx, a),
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
  });
  // Like the generic registry: finished deletions of most kinds answer a Success Status, pending ones the object.
  const returnsObject = !result.removed || a.rt.resource === 'pods' || a.rt.resource === 'namespaces';
  const json = returnsObject
    ? toJson(result.object)
    : JSON.stringify(successStatus(a.rt, a.info.name, result.object.metadata?.uid));
  sendJson(a.res, 200, json);
}

export async function handleDeleteCollection(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const options = await deleteOptions(a);
  const deleted = ctx.store.deleteCollection(a.rt, {
    namespace: a.info.namespace,
    labelSelector: a.query.get('labelSelector') ?? undefined,
    fieldSelector: a.query.get('fieldSelector') ?? undefined,
    dryRun: dryRun(a.query) || (options.dryRun ?? []).includes('All'),
    admit: admission(ctx, a),
  });
  sendJson(
    a.res,
    200,
    `{"kind":${JSON.stringify(a.rt.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(a.rt))},"metadata":{"resourceVersion":"${ctx.store.resourceVersion}"},"items":[${deleted.map(toJson).join(',')}]}`,
  );
}
