import { isJsonObject, type JsonObject } from '../kube-object.js';
import { evictPod } from '../policy/evict.js';
import { badRequest } from '../status/api-status-error.js';
import { decodeBody, readBody } from './body.js';
import { admission, outputOf, reply, type ApiRequest, type HandlerContext } from './resource-handlers.js';
import { deleteDryRun } from './write-params.js';

/**
 * POST pods/<name>/eviction with a policy/v1 or policy/v1beta1 Eviction (kubernetes
 * pkg/registry/core/pod/storage/eviction.go: AcceptsGroupVersion takes both). The name in the body must be
 * the URL's; the Eviction's deleteOptions (dryRun, preconditions) carry to the delete, dryRun merged with
 * the request's (propagateDryRun). Answers a Success Status (201, the create handler's code), upstream's 500
 * Status for overlapping budgets, or the 429 of a budget that allows no disruption.
 */
export async function handleEviction(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const output = outputOf(a);
  const body = decodeBody(await readBody(a.req), a.req.headers['content-type']);
  const eviction: JsonObject = isJsonObject(body) ? body : {};
  const apiVersion = eviction.apiVersion;
  if (apiVersion !== undefined && apiVersion !== 'policy/v1' && apiVersion !== 'policy/v1beta1')
    throw badRequest(`not a Eviction object: ${String(apiVersion)}`);
  const meta = isJsonObject(eviction.metadata) ? eviction.metadata : {};
  if (meta.name !== a.info.name) throw badRequest('name in URL does not match name in Eviction object');
  const options = isJsonObject(eviction.deleteOptions) ? eviction.deleteOptions : {};
  const dryRun = deleteDryRun(
    a.query,
    Array.isArray(options.dryRun) ? options.dryRun.map(String) : undefined,
  );
  const pre = isJsonObject(options.preconditions) ? options.preconditions : undefined;
  const preconditions = pre
    ? {
        ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
        ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
      }
    : undefined;
  const answer = evictPod(ctx.store, a.info.namespace, a.info.name, {
    now: ctx.clock.now(),
    dryRun,
    admit: admission(ctx, a),
    ...(preconditions ? { preconditions } : {}),
  });
  if (answer.kind === 'multiple-budgets') {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: answer.message,
      code: 500,
    };
    reply(a, output, 500, JSON.stringify(status));
    return;
  }
  reply(
    a,
    output,
    201,
    JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }),
  );
}
