/**
 * A small JSON client for the Kubernetes API, authenticated and TLS-configured by client-node's KubeConfig
 * (TLS verification stays as the kubeconfig says: on unless it sets insecure-skip-tls-verify). Why not the
 * generated typed clients: they deserialize into models that drop fields they do not know, and an optimistic
 * PUT of such a model would silently clobber those fields. Here objects stay the JSON the server sent.
 *
 * Transient failures (429 with Retry-After, 500/502/503/504, dropped connections) are retried with backoff on
 * the injected clock. Writes are safe to retry: PUTs carry a resourceVersion (a replayed PUT gets 409 and the
 * caller re-reads), creates answer 409 AlreadyExists, and uproot's patches are idempotent.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import {
  request as httpsRequest,
  type AgentOptions as HttpsAgentOptions,
  type RequestOptions,
} from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock, Random } from '../../clock/index.js';
import { ExitCode, InternalError, UprootError } from '../../errors/index.js';
import { keepAliveAgentFor, pickTls } from '../../election/kube-http/index.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const CONTENT_TYPES = {
  json: 'application/json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface KubeRequest {
  readonly method: HttpMethod;
  /** Absolute API path, e.g. /api/v1/namespaces/kube-system/configmaps/x. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

/** The transport: one HTTP exchange, no retries. Swappable so tests can count or fail requests. */
export type KubeTransport = (
  req: KubeRequest,
) => Promise<{ status: number; body: unknown; retryAfter?: number }>;

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

/** A non-2xx answer from the API server (after retries), carrying the Status reason. */
export class KubeApiError extends UprootError {
  readonly status: number;
  readonly reason: string;
  constructor(req: KubeRequest, status: number, body: unknown) {
    const s = (typeof body === 'object' && body !== null ? body : {}) as {
      message?: string;
      reason?: string;
    };
    const message = s.message ?? (typeof body === 'string' ? body.slice(0, 200) : '');
    super(
      status === 401 || status === 403 ? 'UP-KUBE-ACCESS' : 'UP-KUBE-API',
      `${req.method} ${req.path} failed: HTTP ${status}${message ? `: ${message}` : ''}`,
      {
        source: 'environment',
        exitCode: status === 401 || status === 403 ? ExitCode.badInput : ExitCode.failed,
        hint:
          status === 401
            ? 'the kubeconfig credentials were rejected; refresh them'
            : status === 403
              ? 'the kubeconfig user lacks a permission uproot needs; see docs/permissions.md for what each command needs'
              : RETRYABLE.has(status)
                ? 'the API server kept failing; check its health, then run the command again (with --resume for migrate)'
                : 'see the message from the API server',
      },
    );
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = s.reason ?? '';
  }
}

export function isKubeStatus(error: unknown, status: number): error is KubeApiError {
  return error instanceof KubeApiError && error.status === status;
}

export interface KubeClientOptions {
  readonly clock: Clock;
  readonly random?: Random;
  /** Attempts per request, including the first (default 6). */
  readonly attempts?: number;
  /** First retry delay in ms, doubled each time (default 200). */
  readonly retryBaseMs?: number;
  /** Socket inactivity timeout per request (default 30 s). */
  readonly requestTimeoutMs?: number;
}

export class KubeClient {
  private readonly clock: Clock;
  private readonly random: Random;
  private readonly attempts: number;
  private readonly retryBaseMs: number;

  constructor(
    private readonly transport: KubeTransport,
    options: KubeClientOptions,
    /** A short description of where this client points (no credentials), for messages. */
    readonly server: string = '(unknown)',
  ) {
    this.clock = options.clock;
    this.random = options.random ?? (() => 0.5);
    this.attempts = options.attempts ?? 6;
    this.retryBaseMs = options.retryBaseMs ?? 200;
  }

  static fromKubeConfig(kc: KubeConfig, options: KubeClientOptions): KubeClient {
    return new KubeClient(
      kubeconfigTransport(kc, options.requestTimeoutMs),
      options,
      kc.getCurrentCluster()?.server,
    );
  }

  /** Sends a request, retrying transient failures; resolves with the body of a 2xx answer. */
  async request<T = unknown>(req: KubeRequest, signal?: AbortSignal): Promise<T> {
    let delay = this.retryBaseMs;
    for (let attempt = 1; ; attempt++) {
      let answer: Awaited<ReturnType<KubeTransport>> | undefined;
      let networkError: unknown;
      try {
        answer = await this.clock.track(this.transport(req));
      } catch (error) {
        networkError = error;
      }
      if (answer && answer.status >= 200 && answer.status < 300) return answer.body as T;
      const retryable = networkError !== undefined || (answer !== undefined && RETRYABLE.has(answer.status));
      if (!retryable || attempt >= this.attempts) {
        if (answer) throw new KubeApiError(req, answer.status, answer.body);
        throw networkFailure(req, this.server, networkError);
      }
      const wait = answer?.retryAfter !== undefined ? Math.min(answer.retryAfter * 1000, 10_000) : delay;
      await this.clock.sleep(wait * (0.75 + this.random() / 2), signal);
      delay = Math.min(delay * 2, 5_000);
    }
  }
}

function networkFailure(req: KubeRequest, server: string, error: unknown): UprootError {
  const message = error instanceof Error ? error.message : String(error);
  return new UprootError('UP-KUBE-UNREACHABLE', `${req.method} ${req.path} failed: ${message}`, {
    source: 'environment',
    exitCode: ExitCode.failed,
    hint: `check that ${server} is reachable (kubectl get --raw /readyz)`,
    cause: error,
  });
}

function buildUrl(server: string, req: KubeRequest): URL {
  const base = new URL(server);
  const url = new URL(base.toString());
  url.pathname = `${base.pathname.replace(/\/$/, '')}${req.path}`;
  for (const [k, v] of Object.entries(req.query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

/** The real transport: node:http(s) with the kubeconfig's agent (CA, client certs, proxy) and auth headers. */
export function kubeconfigTransport(kc: KubeConfig, timeoutMs = 30_000): KubeTransport {
  const server = kc.getCurrentCluster()?.server;
  // loadKubeconfig refuses a kubeconfig without a current cluster (UP-KUBECONFIG-NO-CLUSTER) before this.
  if (!server) throw new InternalError('the kubeconfig has no current cluster');
  // One keep-alive agent for every request (a fresh connection per request costs more than the request),
  // shared with the client-node clients made from this kubeconfig and carrying the TLS settings client-node
  // applies; a proxy keeps client-node's own agent.
  return async (req) => {
    const url = buildUrl(server, req);
    const opts: RequestOptions = { method: req.method, headers: {} };
    await kc.applyToHTTPSOptions(opts);
    const agent = keepAliveAgentFor(
      kc,
      url,
      url.protocol === 'http:' ? {} : pickTls(opts as HttpsAgentOptions),
    );
    if (agent) opts.agent = agent;
    const body = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const headers: Record<string, string | number> = {
      ...(opts.headers as Record<string, string>),
      Accept: 'application/json',
      'User-Agent': 'uproot',
    };
    if (body) {
      headers['Content-Type'] = req.contentType ?? CONTENT_TYPES.json;
      headers['Content-Length'] = body.length;
    }
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const r = send(url, { ...opts, headers }, (res) => {
        readBody(res).then(resolve, reject);
      });
      r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      r.on('error', reject);
      r.end(body);
    });
  };
}

async function readBody(
  res: IncomingMessage,
): Promise<{ status: number; body: unknown; retryAfter?: number }> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's HTML error page): keep the text for the message.
  }
  const retryAfterHeader = res.headers['retry-after'];
  const retryAfter = retryAfterHeader !== undefined ? Number(retryAfterHeader) : undefined;
  return {
    status: res.statusCode ?? 0,
    body,
    ...(retryAfter !== undefined && Number.isFinite(retryAfter) ? { retryAfter } : {}),
  };
}
