import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from 'uproot';
import { admitNodeRestriction } from '../admission/node-restriction.js';
import type { UserInfo } from '../auth/identity.js';
import type { RbacAuthorizer } from '../auth/rbac-authorizer.js';
import type { ServiceAccountTokens } from '../auth/service-account-tokens.js';
import { toJson, type KubeObject } from '../kube-object.js';
import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';
import { parseLabelSelector } from '../selectors/label-selector.js';
import { invalid } from '../status/api-status-error.js';
import type { ObjectStore } from '../store/object-store.js';
import type { Admit } from '../store/store-types.js';
import { defaultPrinter } from '../tables/other-printers.js';
import { rowJson, tableJson } from '../tables/table.js';
import type { WatchHub, WatchStart } from '../watch/watch-hub.js';
import type { MediaRange } from './negotiation.js';
import { negotiateOutput, serialise, type Output, type Rendering } from './output.js';
import { goQuote, listParams, parseResourceVersion, type ListParams } from './query-params.js';
import type { RequestInfo } from './request-info.js';
import { sendJson, warningHeaders } from './respond.js';

export interface HandlerContext {
  readonly store: ObjectStore;
  /** Issues bound service account tokens (TokenRequest). */
  readonly tokens: ServiceAccountTokens;
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
  /** `?pretty` or a curl/Wget/browser User-Agent (negotiate.go isPrettyPrint). */
  readonly pretty: boolean;
  /** `Warning` headers for the response (field validation's Warn). */
  readonly warnings: string[];
}

/** Negotiates the response format of a non-stream answer (406 when nothing acceptable is served). */
export function outputOf(a: ApiRequest): Output {
  return negotiateOutput(a.accept, a.query.get('includeObject'), a.pretty, false);
}

/** Sends a JSON answer in the negotiated format, with the request's warnings. */
export function reply(a: ApiRequest, output: Output, code: number, json: string): void {
  const { body, contentType } = serialise(output, json);
  sendJson(a.res, code, body, contentType, warningHeaders(a.warnings));
}

/** The admission chain for this request's writes (NodeRestriction; RBAC has already allowed the verb). */
export function admission(ctx: HandlerContext, a: ApiRequest): Admit {
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

export function renderOne(
  ctx: HandlerContext,
  rt: ResourceType,
  obj: KubeObject,
  rendering: Rendering,
): string {
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

export function handleGet(ctx: HandlerContext, a: ApiRequest): void {
  const output = outputOf(a);
  const obj = ctx.store.mustGet(a.rt, a.info.namespace, a.info.name);
  reply(a, output, 200, renderOne(ctx, a.rt, obj, output.rendering));
}

export function handleList(ctx: HandlerContext, a: ApiRequest): void {
  const { rt } = a;
  const output = outputOf(a);
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
    ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
  };
  const { rendering } = output;
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
  reply(a, output, 200, json);
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
  const output = negotiateOutput(a.accept, query.get('includeObject'), false, true);
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
      fieldSelector: ctx.store.fieldSelector(rt, fieldSelector),
      rendering: output.rendering,
      allowBookmarks: p.allowWatchBookmarks,
      ...(p.timeoutSeconds !== undefined && p.timeoutSeconds > 0
        ? { timeoutMs: p.timeoutSeconds * 1000 }
        : {}),
    },
    start,
    a.res,
  );
}
