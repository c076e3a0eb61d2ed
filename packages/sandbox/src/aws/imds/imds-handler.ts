import type { AwsState } from '../state/aws-state.js';
import { MAX_TOKEN_TTL_SECONDS, type ImdsTokens } from './imds-tokens.js';
import { lookupMetadata, metadataTree } from './metadata-tree.js';

export interface ImdsRequest {
  readonly method: string;
  /** The path after `/latest/` (`meta-data/instance-id`, `api/token`). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The instance this request is for, from the path prefix or the instance's own endpoint; undefined when neither. */
  readonly instanceId: string | undefined;
  /**
   * Network hops between the caller and the instance's metadata service: 1 on the instance itself (host
   * network), 2 from a container behind a bridge or pod network (src/sandbox/aws/imds/imds-network.ts).
   */
  readonly hops: number;
}

export type ImdsResponse =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly body: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  /** The response left the service but its IP TTL (the hop limit) ran out before it reached the caller. */
  | { readonly kind: 'lost' };

const answer = (status: number, body: string, headers: Record<string, string> = {}): ImdsResponse => ({
  kind: 'answer',
  status,
  body,
  headers: { 'content-type': 'text/plain', ...headers },
});

/**
 * IMDS answers errors with an XHTML page whose title is the status (awslabs/amazon-eks-ami#594 quotes the
 * 401 page; its length, 343 bytes, is in guardicore/monkey#4275's log). aws-sdk-go's
 * `EC2MetadataError: failed to make EC2Metadata request` carries this body.
 */
export function imdsErrorPage(status: number, reason: string): string {
  const title = `${status} - ${reason}`;
  return (
    '<?xml version="1.0" encoding="iso-8859-1"?>\n' +
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"\n' +
    '\t"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n' +
    '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n' +
    ` <head>\n  <title>${title}</title>\n </head>\n <body>\n  <h1>${title}</h1>\n </body>\n</html>\n`
  );
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
};

const error = (status: number): ImdsResponse =>
  answer(status, imdsErrorPage(status, REASONS[status] ?? 'Error'), { 'content-type': 'text/html' });

function header(headers: ImdsRequest['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The instance metadata service of EC2 (User Guide, "How Instance Metadata Service Version 2 works"):
 * - `PUT /latest/api/token` with `X-aws-ec2-metadata-token-ttl-seconds` 1..21600 issues a session token; a
 *   PUT carrying `X-Forwarded-For` is refused (403), a missing or bad TTL is 400. The token's response
 *   travels at most `HttpPutResponseHopLimit` hops: a caller further away never gets it.
 * - A GET with a token must carry a valid, unexpired one of this instance (401 otherwise). Without a token
 *   it is IMDSv1: answered when `HttpTokens` is `optional`, 401 when `required`.
 * - `HttpEndpoint: disabled` answers nothing but 403.
 */
export function handleImds(state: AwsState, tokens: ImdsTokens, request: ImdsRequest): ImdsResponse {
  const instance = request.instanceId === undefined ? undefined : state.ec2.instance(request.instanceId);
  if (request.instanceId !== undefined && (!instance || instance.state === 'terminated')) return error(404);
  const options = instance?.metadataOptions;
  if (options?.httpEndpoint === 'disabled') return error(403);
  if (request.path === 'api/token') {
    if (request.method !== 'PUT') return error(405);
    if (header(request.headers, 'x-forwarded-for') !== undefined) return error(403);
    const raw = header(request.headers, 'x-aws-ec2-metadata-token-ttl-seconds');
    const ttl = raw === undefined || !/^\d+$/.test(raw) ? NaN : Number(raw);
    if (!(ttl >= 1 && ttl <= MAX_TOKEN_TTL_SECONDS)) return error(400);
    // Issued either way: the service answered; the network lost the answer.
    const token = tokens.issue(ttl, request.instanceId);
    if (options && request.hops > options.httpPutResponseHopLimit) return { kind: 'lost' };
    return answer(200, token, { 'x-aws-ec2-metadata-token-ttl-seconds': String(ttl) });
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return error(405);
  if (!instance) {
    return answer(
      404,
      'Not Found: choose an instance with the /_instance/<instance-id>/latest/... path prefix',
    );
  }
  const token = header(request.headers, 'x-aws-ec2-metadata-token');
  if (token !== undefined ? !tokens.valid(token, instance.id) : options?.httpTokens !== 'optional')
    return error(401);
  if (request.path === '') return answer(200, 'dynamic\nmeta-data');
  const body = lookupMetadata(metadataTree(state, instance), request.path);
  if (body === undefined) return error(404);
  return answer(200, body);
}
