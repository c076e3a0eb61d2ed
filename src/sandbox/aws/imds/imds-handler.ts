import type { AwsState } from '../state/aws-state.js';
import { MAX_TOKEN_TTL_SECONDS, type ImdsTokens } from './imds-tokens.js';
import { lookupMetadata, metadataTree } from './metadata-tree.js';

export interface ImdsRequest {
  readonly method: string;
  /** The path after `/latest/` (`meta-data/instance-id`, `api/token`). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The instance this request is for, from the path prefix or a dedicated port; undefined when neither. */
  readonly instanceId: string | undefined;
}

export interface ImdsResponse {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const text = (status: number, body: string, headers?: Record<string, string>): ImdsResponse => ({
  status,
  body,
  headers,
});

function header(headers: ImdsRequest['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** IMDSv2 only (tokens required), as hardened instances are configured (`HttpTokens: required`). */
export function handleImds(state: AwsState, tokens: ImdsTokens, request: ImdsRequest): ImdsResponse {
  if (request.path === 'api/token') {
    if (request.method !== 'PUT') return text(405, 'Method Not Allowed');
    const raw = header(request.headers, 'x-aws-ec2-metadata-token-ttl-seconds');
    const ttl = raw === undefined || !/^\d+$/.test(raw) ? NaN : Number(raw);
    if (!(ttl >= 1 && ttl <= MAX_TOKEN_TTL_SECONDS)) return text(400, 'Bad Request');
    if (request.instanceId !== undefined && !state.ec2.instance(request.instanceId))
      return text(404, 'Not Found');
    const token = tokens.issue(ttl, request.instanceId);
    return text(200, token, { 'x-aws-ec2-metadata-token-ttl-seconds': String(ttl) });
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Method Not Allowed');
  if (request.instanceId === undefined) {
    return text(
      404,
      'Not Found: choose an instance with the /_instance/<instance-id>/latest/... path prefix',
    );
  }
  const instance = state.ec2.instance(request.instanceId);
  if (!instance || instance.state === 'terminated') return text(404, 'Not Found');
  if (!tokens.valid(header(request.headers, 'x-aws-ec2-metadata-token'), instance.id))
    return text(401, 'Unauthorized');
  if (request.path === '') return text(200, 'dynamic\nmeta-data');
  const body = lookupMetadata(metadataTree(state, instance), request.path);
  if (body === undefined) return text(404, 'Not Found');
  return text(200, body);
}
