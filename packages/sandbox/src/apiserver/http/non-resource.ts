import type { ServerResponse } from 'node:http';
import type { Discovery } from '../discovery/discovery.js';
import type { OpenApi } from '../discovery/openapi.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_ACCEPT } from '../discovery/openapi-v2.js';
import { ApiStatusError } from '../status/api-status-error.js';
import { discoveryContentType, discoveryFormat, type MediaRange } from './negotiation.js';
import { sendJson, sendText } from './respond.js';

export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  /** From 1.33 (apimachinery pkg/version/types.go, omitempty before). */
  readonly emulationMajor?: string;
  readonly emulationMinor?: string;
  readonly minCompatibilityMajor?: string;
  readonly minCompatibilityMinor?: string;
}

export interface NonResourceContext {
  readonly discovery: Discovery;
  readonly openapi: OpenApi;
  readonly version: VersionInfo;
}

/** kube-openapi's v2 handler: protobuf when asked for it, JSON for JSON (or anything), else 406. */
function sendOpenApiV2(openapi: OpenApi, accept: readonly MediaRange[], res: ServerResponse): void {
  for (const m of accept) {
    if (m.type === OPENAPI_V2_PROTOBUF || m.type === OPENAPI_V2_PROTOBUF_ACCEPT) {
      const body = openapi.v2('protobuf') as Buffer;
      if (res.headersSent || res.destroyed) return;
      res.writeHead(200, {
        'Cache-Control': 'no-cache, private',
        'Content-Type': OPENAPI_V2_PROTOBUF,
        'Content-Length': body.length,
      });
      res.end(body);
      return;
    }
    if (m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*') {
      return sendJson(res, 200, openapi.v2('json') as string);
    }
  }
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server could not find the requested resource',
    reason: 'NotAcceptable',
    code: 406,
  };
  sendJson(res, 406, JSON.stringify(status));
}

const HEALTH = /^\/(healthz|livez|readyz)(\/.*)?$/;

/** Paths anonymous callers may read (system:public-info-viewer). */
export function isPublicPath(path: string): boolean {
  return HEALTH.test(path) || path === '/version' || path === '/version/';
}

export function notFoundResource(): ApiStatusError {
  return new ApiStatusError({
    message: 'the server could not find the requested resource',
    reason: 'NotFound',
    details: {},
    code: 404,
  });
}

/** Health, version, discovery and OpenAPI. */
export function handleNonResource(
  ctx: NonResourceContext,
  path: string,
  accept: readonly MediaRange[],
  res: ServerResponse,
): void {
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (HEALTH.test(clean)) return sendText(res, 200, 'ok');
  if (clean === '/version') {
    const v = ctx.version;
    return sendJson(
      res,
      200,
      JSON.stringify({
        major: v.major,
        minor: v.minor,
        emulationMajor: v.emulationMajor,
        emulationMinor: v.emulationMinor,
        minCompatibilityMajor: v.minCompatibilityMajor,
        minCompatibilityMinor: v.minCompatibilityMinor,
        gitVersion: v.gitVersion,
        gitCommit: '0000000000000000000000000000000000000000',
        gitTreeState: 'clean',
        buildDate: '2025-01-01T00:00:00Z',
        goVersion: 'go1.23.0',
        compiler: 'gc',
        platform: 'linux/amd64',
      }),
    );
  }
  if (clean === '/api' || clean === '/apis') {
    const format = discoveryFormat(accept);
    const prefix = clean === '/api' ? 'api' : 'apis';
    if (format !== 'legacy')
      return sendJson(res, 200, ctx.discovery.aggregated(prefix, format), discoveryContentType(format));
    return sendJson(res, 200, prefix === 'api' ? ctx.discovery.apiVersions() : ctx.discovery.apiGroupList());
  }
  const segments = clean.split('/').filter(Boolean);
  if (segments[0] === 'api' && segments.length === 2) {
    const list = ctx.discovery.resourceList('', segments[1]!);
    if (list) return sendJson(res, 200, list);
  }
  if (segments[0] === 'apis' && segments.length === 2) {
    const group = ctx.discovery.apiGroup(segments[1]!);
    if (group) return sendJson(res, 200, group);
  }
  if (segments[0] === 'apis' && segments.length === 3) {
    const list = ctx.discovery.resourceList(segments[1]!, segments[2]!);
    if (list) return sendJson(res, 200, list);
  }
  if (clean === '/openapi/v2') return sendOpenApiV2(ctx.openapi, accept, res);
  if (clean === '/openapi/v3') return sendJson(res, 200, ctx.openapi.root());
  if (segments[0] === 'openapi' && segments[1] === 'v3') {
    const doc = ctx.openapi.groupVersion(segments.slice(2).join('/'));
    if (doc) return sendJson(res, 200, doc);
  }
  const err = notFoundResource();
  sendJson(res, 404, JSON.stringify(err.status));
}
