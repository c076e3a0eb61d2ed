/**
 * Typed client-node API objects whose requests share one keep-alive agent per kubeconfig context.
 *
 * Why: client-node 1.4 builds a new `https.Agent` on every call (`KubeConfig.applySecurityAuthentication`), so
 * every request pays a TCP and TLS handshake (~5.5 ms per GET against the sandbox, ~1.1 ms on a reused
 * connection). Here a request middleware swaps that fresh agent for a cached keep-alive one.
 *
 * How the TLS settings stay exactly client-node's: the generated request factories run the auth method
 * (`KubeConfig.applySecurityAuthentication`: bearer token, exec or auth-provider credentials, CA, client
 * cert/key, insecure-skip-tls-verify, tls-server-name) before any middleware `pre`. Our `pre` therefore sees the
 * agent client-node just built, copies its TLS options into the shared agent, and replaces it. Headers set by
 * the auth method are untouched. When those TLS options change (a rotated client certificate, exec credentials
 * with a new cert), a new shared agent is made. Verification stays on unless the kubeconfig turns it off.
 *
 * Left to client-node: clusters behind a proxy (its proxy agent is kept), and any call whose per-call options
 * replace the middleware (`middlewareMergeStrategy: 'replace'`, the default when `middleware` is passed): such a
 * call still works, on a fresh connection.
 *
 * It is election's because `uproot/election` (standalone: it imports nothing of uproot's other folders) builds
 * its lease clients with it; uproot's adapters use it from here.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import {
  createConfiguration,
  ServerConfiguration,
  type ApiConstructor,
  type ApiType,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { InputError } from '../../errors/index.js';

export interface KeepAliveClientOptions {
  /**
   * Use this agent for every request instead of the shared one. It must carry the TLS settings itself (CA,
   * client certificate); the kubeconfig's are not applied to it. The caller owns (and closes) it.
   */
  readonly agent?: HttpAgent | HttpsAgent;
}

/** TLS options client-node may put on its agent; the shared agent copies the ones that are set. */
const TLS_KEYS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
  'ciphers',
  'crl',
  'secureProtocol',
  'secureOptions',
  'minVersion',
  'maxVersion',
] as const satisfies readonly (keyof HttpsAgentOptions)[];

export type TlsOptions = Partial<Pick<HttpsAgentOptions, (typeof TLS_KEYS)[number]>>;

interface Slot {
  readonly agent: HttpAgent;
  readonly tls: TlsOptions;
}

interface Pool {
  /** Keyed by context name and server origin. */
  readonly slots: Map<string, Slot>;
  /** Agents replaced after a TLS change; requests may still be running on them, so they close with the pool. */
  readonly retired: HttpAgent[];
}

const pools = new WeakMap<KubeConfig, Pool>();

/**
 * Like `kc.makeApiClient(apiClass)`, but every request goes through one keep-alive agent shared by all API
 * objects made from `kc` for its current context. Authentication and TLS are client-node's own.
 */
export function makeKeepAliveApiClient<T extends ApiType>(
  kc: KubeConfig,
  apiClass: ApiConstructor<T>,
  options: KeepAliveClientOptions = {},
): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    // client-node's own message for makeApiClient
    throw new InputError('UP-KUBECONFIG-NO-CLUSTER', 'No active cluster!', {
      hint: 'pass --context NAME, or set current-context in the kubeconfig',
    });
  }
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [
      {
        pre: (context: RequestContext) => {
          const agent = options.agent ?? sharedAgent(kc, context);
          if (agent) context.setAgent(agent);
          return Promise.resolve(context);
        },
        post: (response: ResponseContext) => Promise.resolve(response),
      },
    ],
  });
  return new apiClass(configuration);
}

/**
 * Closes the shared agents made for `kc` (every context), ending their sockets, idle or not. Later requests
 * through clients made from `kc` open new ones. Idle sockets never keep the process alive (Node unrefs them),
 * so this is for tidy shutdowns and tests.
 */
export function closeKeepAliveAgents(kc: KubeConfig): void {
  const pool = pools.get(kc);
  if (!pool) return;
  pools.delete(kc);
  for (const slot of pool.slots.values()) slot.agent.destroy();
  for (const agent of pool.retired) agent.destroy();
}

/** The shared agent for this request, or undefined to keep client-node's (proxies, unknown agent kinds). */
function sharedAgent(kc: KubeConfig, context: RequestContext): HttpAgent | undefined {
  const built = context.getAgent();
  const url = new URL(context.getUrl());
  // client-node only allows http with insecure-skip-tls-verify, and then builds a plain http.Agent.
  if (built instanceof HttpsAgent) return keepAliveAgentFor(kc, url, pickTls(built.options));
  if (built instanceof HttpAgent && url.protocol === 'http:') return keepAliveAgentFor(kc, url, {});
  return undefined;
}

/**
 * The keep-alive agent shared by every request to `url`'s server through `kc`'s current context, carrying
 * `tls` (the options client-node applied); a new one when they changed. Undefined behind a proxy (client-node's
 * proxy agent is kept). Also used by uproot's own JSON transport (src/adapters/kube/kube-client.ts).
 */
export function keepAliveAgentFor(kc: KubeConfig, url: URL, tls: TlsOptions): HttpAgent | undefined {
  if (kc.getCurrentCluster()?.proxyUrl) return undefined;
  let pool = pools.get(kc);
  if (!pool) {
    pool = { slots: new Map(), retired: [] };
    pools.set(kc, pool);
  }
  const key = `${kc.getCurrentContext()}\n${url.origin}`;
  const slot = pool.slots.get(key);
  if (slot && sameTls(slot.tls, tls)) return slot.agent;
  if (slot) pool.retired.push(slot.agent);
  const agent =
    url.protocol === 'http:'
      ? new HttpAgent({ keepAlive: true })
      : new HttpsAgent({ ...tls, keepAlive: true });
  pool.slots.set(key, { agent, tls });
  return agent;
}

/** The TLS options (CA, client certificate, verification) set in `options`. */
export function pickTls(options: HttpsAgentOptions): TlsOptions {
  const picked: Record<string, unknown> = {};
  for (const k of TLS_KEYS) if (options[k] !== undefined) picked[k] = options[k];
  return picked as TlsOptions;
}

function sameTls(a: TlsOptions, b: TlsOptions): boolean {
  return TLS_KEYS.every((k) => sameValue(a[k], b[k]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  // e.g. pfx entries `{ buf, passphrase }`
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}
