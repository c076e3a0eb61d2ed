import type { ServiceAccountTokens, BoundObject } from '../auth/service-account-tokens.js';
import { isJsonObject, type JsonObject, type KubeObject } from '../kube-object.js';
import { badRequest, conflict, invalid, notFound } from '../status/api-status-error.js';
import { decodeBody, readBody } from './body.js';
import { admission, outputOf, reply, type ApiRequest, type HandlerContext } from './resource-handlers.js';
import { writeParams } from './write-params.js';

/**
 * POST serviceaccounts/<name>/token (kubernetes pkg/registry/core/serviceaccount/storage/token.go):
 * validates the TokenRequest (pkg/apis/authentication/validation), checks the account and the bound
 * object, admits it (NodeRestriction limits kubelets to tokens bound to their own pods), and answers the
 * request with `status.token` and `status.expirationTimestamp`.
 */

const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };
const MIN_SECONDS = 10 * 60;
const MAX_SECONDS = 2 ** 32;

const BOUND_RESOURCES: Readonly<Record<string, { resource: string; namespaced: boolean }>> = {
  Pod: { resource: 'pods', namespaced: true },
  Secret: { resource: 'secrets', namespaced: true },
  Node: { resource: 'nodes', namespaced: false },
};

export async function handleTokenRequest(
  ctx: HandlerContext,
  a: ApiRequest,
  tokens: ServiceAccountTokens,
): Promise<void> {
  const output = outputOf(a);
  const body = decodeBody(await readBody(a.req), a.req.headers['content-type']);
  const params = writeParams(a.query, 'Create');
  const request: JsonObject = isJsonObject(body) ? body : {};
  const spec = isJsonObject(request.spec) ? request.spec : {};
  const seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  if (seconds < MIN_SECONDS) {
    throw invalid('TokenRequest', 'authentication.k8s.io', '', [
      {
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${seconds}: may not specify a duration less than 10 minutes`,
      },
    ]);
  }
  if (seconds > MAX_SECONDS) {
    throw invalid('TokenRequest', 'authentication.k8s.io', '', [
      {
        field: 'spec.expirationSeconds',
        message: 'Too long: may not specify a duration larger than 2^32 seconds',
        type: 'FieldValueTooLong',
      },
    ]);
  }
  const { namespace, name } = a.info;
  const account = ctx.store.get(SERVICE_ACCOUNTS, namespace, name);
  if (!account) throw notFound(SERVICE_ACCOUNTS, name);
  const bound = boundObject(ctx, namespace, name, spec.boundObjectRef);
  admission(ctx, a)({ operation: 'CREATE', object: { ...request, spec } });
  const audiences =
    Array.isArray(spec.audiences) && spec.audiences.length > 0
      ? spec.audiences.map(String)
      : [...tokens.apiAudiences];
  const nodeName =
    bound?.object.spec && isJsonObject(bound.object.spec) ? bound.object.spec.nodeName : undefined;
  const node =
    bound?.ref.kind === 'Pod' && typeof nodeName === 'string'
      ? ctx.store.get({ group: '', version: 'v1', resource: 'nodes' }, '', nodeName)
      : undefined;
  const issued = params.dryRun
    ? { token: '', expiresAt: ctx.clock.now() + seconds * 1000 }
    : tokens.issue({
        namespace,
        serviceAccount: { name, uid: account.metadata?.uid ?? '' },
        audiences,
        expirationSeconds: seconds,
        ...(bound ? { bound: bound.ref } : {}),
        ...(node ? { node: { name: node.metadata?.name ?? '', uid: node.metadata?.uid ?? '' } } : {}),
      });
  const answer = {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { ...spec, audiences, expirationSeconds: seconds },
    status: {
      token: issued.token,
      expirationTimestamp: new Date(Math.floor(issued.expiresAt / 1000) * 1000)
        .toISOString()
        .replace('.000Z', 'Z'),
    },
  };
  reply(a, output, 201, JSON.stringify(answer));
}

function boundObject(
  ctx: HandlerContext,
  namespace: string,
  account: string,
  ref: unknown,
): { ref: BoundObject; object: KubeObject } | undefined {
  if (!isJsonObject(ref)) return undefined;
  const kind = String(ref.kind ?? '');
  const apiVersion = String(ref.apiVersion ?? '');
  const target = BOUND_RESOURCES[kind];
  if (!target || (apiVersion !== 'v1' && apiVersion !== '')) {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  const name = String(ref.name ?? '');
  const rt = { group: '', version: 'v1', resource: target.resource };
  const object = ctx.store.get(rt, target.namespaced ? namespace : '', name);
  if (!object) throw notFound(rt, name);
  if (kind === 'Pod') {
    const spec = isJsonObject(object.spec) ? object.spec : {};
    if ((spec.serviceAccountName ?? 'default') !== account) {
      throw badRequest(
        `cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`,
      );
    }
  }
  const uid = object.metadata?.uid ?? '';
  if (ref.uid && ref.uid !== uid) {
    throw conflict(
      { group: '', resource: kind },
      name,
      `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return { ref: { kind: kind as BoundObject['kind'], name, uid }, object };
}
