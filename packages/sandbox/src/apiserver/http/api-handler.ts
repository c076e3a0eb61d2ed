import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from 'uproot';
import { ANONYMOUS, type TokenAuthenticator, type UserInfo } from '../auth/identity.js';
import { forbiddenMessage, type RbacAuthorizer } from '../auth/rbac-authorizer.js';
import type { RequestAttributes } from '../auth/rbac-rules.js';
import type { FaultInjector, FaultRequest } from '../faults/fault-injector.js';
import { faultError } from '../faults/fault-injector.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ResourceType } from '../registry/resource-type.js';
import {
  ApiStatusError,
  forbidden,
  internalError,
  methodNotAllowed,
  timeoutError,
  unauthorized,
} from '../status/api-status-error.js';
import { parseAccept } from './negotiation.js';
import {
  handleNonResource,
  isPublicPath,
  notFoundResource,
  type NonResourceContext,
} from './non-resource.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import type { RequestStats } from './request-stats.js';
import {
  handleGet,
  handleList,
  handleWatch,
  type ApiRequest,
  type HandlerContext,
} from './resource-handlers.js';
import {
  handleCreate,
  handleDelete,
  handleDeleteCollection,
  handlePatch,
  handleUpdate,
} from './write-handlers.js';
import { isPrettyPrint } from './query-params.js';
import { handleTokenRequest } from './token-request.js';
import { sendStatus } from './respond.js';
import { handleScale } from './scale.js';
import { handleEviction } from './eviction.js';

export interface ApiHandlerDeps extends Omit<HandlerContext, 'authorize'>, NonResourceContext {
  readonly registry: ResourceRegistry;
  readonly authenticator: TokenAuthenticator;
  readonly authorizer: RbacAuthorizer;
  readonly faults: FaultInjector;
  /** Real time, for injected latency and hang timeouts (never virtual: requests are real I/O). */
  readonly realClock: Clock;
  readonly stats: RequestStats;
  /** Requests held open by `hang` faults; the server destroys them on close. */
  readonly held: Set<ServerResponse>;
}

function attributes(info: RequestInfo, user: UserInfo, verb = info.verb): RequestAttributes {
  return {
    user,
    verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

function authorize(authorizer: RbacAuthorizer, info: RequestInfo, user: UserInfo, verb = info.verb): void {
  const attrs = attributes(info, user, verb);
  const decision = authorizer.authorize(attrs);
  if (decision.allowed) return;
  const message = forbiddenMessage(attrs) + (decision.reason ? `: ${decision.reason}` : '');
  throw forbidden(
    info.isResourceRequest ? { group: info.apiGroup, resource: info.resource } : undefined,
    info.name,
    message,
  );
}

const NAMESPACED_ONLY_VERBS = new Set(['get', 'update', 'patch', 'delete', 'create']);
const SUBRESOURCE_VERBS = new Set(['get', 'update', 'patch']);

/** Resolves the served type and rejects paths the real server has no route for. */
function resolve(deps: ApiHandlerDeps, info: RequestInfo): ResourceType {
  const rt = deps.registry.get({ group: info.apiGroup, version: info.apiVersion, resource: info.resource });
  if (!rt) throw notFoundResource();
  const isNamespaceObject = rt.group === '' && rt.resource === 'namespaces';
  if (!rt.namespaced && info.namespace && !isNamespaceObject) throw notFoundResource();
  if (rt.namespaced && !info.namespace && NAMESPACED_ONLY_VERBS.has(info.verb)) throw notFoundResource();
  if (info.subresource === 'token' && rt.group === '' && rt.resource === 'serviceaccounts') {
    // TokenRequest: create only (not listed in the twin's discovery).
    if (info.verb !== 'create') throw methodNotAllowed();
    return rt;
  }
  if (info.subresource) {
    if (!rt.subresources.includes(info.subresource as 'status')) throw notFoundResource();
    // pods/eviction is create only (pkg/registry/core/pod/storage/eviction.go: a NamedCreater).
    if (info.subresource === 'eviction' ? info.verb !== 'create' : !SUBRESOURCE_VERBS.has(info.verb))
      throw methodNotAllowed();
  } else if (!rt.verbs.includes(info.verb as 'get')) {
    throw methodNotAllowed();
  }
  return rt;
}

async function dispatch(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  switch (a.info.verb) {
    case 'get':
      return a.info.subresource === 'scale' ? handleScale(ctx, a, undefined) : handleGet(ctx, a);
    case 'list':
      return handleList(ctx, a);
    case 'watch':
      return handleWatch(ctx, a);
    case 'create':
      if (a.info.subresource === 'eviction') return handleEviction(ctx, a);
      return a.info.subresource === 'token' ? handleTokenRequest(ctx, a, ctx.tokens) : handleCreate(ctx, a);
    case 'update':
      return handleUpdate(ctx, a);
    case 'patch':
      return handlePatch(ctx, a);
    case 'delete':
      return handleDelete(ctx, a);
    case 'deletecollection':
      return handleDeleteCollection(ctx, a);
    default:
      throw methodNotAllowed();
  }
}

/** Applies latency and fault rules; returns true when a fault answered (or swallowed) the request. */
async function injectFaults(deps: ApiHandlerDeps, r: FaultRequest, res: ServerResponse): Promise<boolean> {
  const delay = deps.faults.latencyFor(r);
  if (delay > 0) await deps.realClock.sleep(delay);
  const action = deps.faults.pick(r);
  if (!action) return false;
  switch (action.type) {
    case 'status':
      sendStatus(res, faultError(action, r));
      return true;
    case 'reset':
      res.socket?.destroy();
      return true;
    case 'hang':
      deps.held.add(res);
      res.on('close', () => deps.held.delete(res));
      if (action.ms !== undefined) {
        void deps.realClock.sleep(action.ms).then(() => {
          deps.held.delete(res);
          sendStatus(res, timeoutError());
        });
      }
      return true;
  }
}

/** The request pipeline: authenticate, count, inject faults, authorise, then serve. */
export function createApiHandler(deps: ApiHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const ctx: HandlerContext = {
    ...deps,
    authorize: (info, user, verb) => authorize(deps.authorizer, info, user, verb),
  };
  return (req, res) => {
    void handle(deps, ctx, req, res).catch((err: unknown) => {
      const status =
        err instanceof ApiStatusError ? err : internalError(err instanceof Error ? err.message : String(err));
      if (!res.headersSent) sendStatus(res, status);
      else res.destroy();
    });
  };
}

async function handle(
  deps: ApiHandlerDeps,
  ctx: HandlerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = (q >= 0 ? url.slice(0, q) : url).replace(/^\/{2,}/, '/');
  const query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
  const method = (req.method ?? 'GET').toUpperCase();
  const info = parseRequestInfo(method, path, query);

  const auth = deps.authenticator.authenticate(req.headers.authorization);
  if (auth.kind === 'invalid' || (auth.kind === 'anonymous' && !isPublicPath(path))) throw unauthorized();
  const user = auth.kind === 'user' ? auth.user : ANONYMOUS;
  deps.stats.record(info);

  const faultRequest: FaultRequest = {
    method,
    path,
    verb: info.verb,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    user: user.name,
  };
  if (deps.faults.active && (await injectFaults(deps, faultRequest, res))) return;

  authorize(deps.authorizer, info, user);
  const accept = parseAccept(req.headers.accept);
  if (!info.isResourceRequest) {
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
    handleNonResource(deps, path, accept, res);
    return;
  }
  const rt = resolve(deps, info);
  // The namespaces resource carries its own name as namespace (for RBAC); storage sees it as cluster-scoped.
  const scoped: RequestInfo = rt.namespaced ? info : { ...info, namespace: '' };
  const pretty = isPrettyPrint(query, req.headers['user-agent']);
  await dispatch(ctx, { req, res, info: scoped, query, rt, user, accept, pretty, warnings: [] });
}
