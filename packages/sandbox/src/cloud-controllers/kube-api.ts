import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Event,
  type V1Node,
  type V1Service,
} from '@kubernetes/client-node';
import type { Clock } from 'uproot';
import { listAll, makeKeepAliveApiClient } from 'uproot/election';

/** Where a simulated manager's controllers reach the API server, and as whom. */
export interface KubeEndpoint {
  readonly server: string;
  /** Bearer token of the identity the calls are made as. Never logged. */
  readonly token: string;
  /** PEM of the CA for https servers; TLS verification stays on. */
  readonly certificateAuthority?: string | undefined;
  /**
   * A token that changes (client-go's token source for --use-service-account-credentials): asked before
   * every call, which then goes out with the token it returns instead of `token`.
   */
  readonly tokenSource?: () => Promise<string>;
}

/** A failed API call, reduced to what controllers branch on and print. */
export class KubeCallError extends Error {
  readonly status: number | undefined;
  readonly reason: string | undefined;

  constructor(message: string, status: number | undefined, reason: string | undefined, cause: unknown) {
    super(message, { cause });
    this.name = 'KubeCallError';
    this.status = status;
    this.reason = reason;
  }
}

export const isKubeNotFound = (e: unknown): boolean => e instanceof KubeCallError && e.status === 404;
export const isKubeConflict = (e: unknown): boolean => e instanceof KubeCallError && e.status === 409;

/** The Status message of a client-node ApiException (e.g. the 403 text), or the error's own message. */
export function toKubeCallError(error: unknown, what: string): KubeCallError {
  if (error instanceof KubeCallError) return error;
  const e = error as { code?: unknown; body?: unknown; message?: string };
  if (typeof e.code === 'number') {
    const body = typeof e.body === 'string' ? safeJson(e.body) : e.body;
    const status = body as { message?: string; reason?: string } | undefined;
    const text = status?.message ?? `HTTP ${e.code}`;
    return new KubeCallError(text, e.code, status?.reason, error);
  }
  return new KubeCallError(`${what}: ${e.message ?? String(error)}`, undefined, undefined, error);
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const STRATEGIC = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

/**
 * The Kubernetes calls the simulated controllers make, over HTTP with client-node. Every call is wrapped in
 * `clock.track` so virtual time never moves in the middle of a request, and errors become KubeCallError.
 */
export class KubeApi {
  core: CoreV1Api;
  private readonly clock: Clock;
  private token: string;

  constructor(
    private readonly endpoint: KubeEndpoint,
    clock: Clock,
  ) {
    this.core = makeKeepAliveApiClient(kubeConfigFor(endpoint), CoreV1Api);
    this.clock = clock;
    this.token = endpoint.token;
  }

  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      await this.refreshToken();
      return await this.clock.track(work());
    } catch (error) {
      throw toKubeCallError(error, what);
    }
  }

  private async refreshToken(): Promise<void> {
    if (!this.endpoint.tokenSource) return;
    const token = await this.clock.track(this.endpoint.tokenSource());
    if (token === this.token) return;
    this.token = token;
    this.core = makeKeepAliveApiClient(kubeConfigFor({ ...this.endpoint, token }), CoreV1Api);
  }

  /** getOrCreateServiceAccount (controller-manager pkg/clientbuilder): the account must exist to get a token. */
  async ensureServiceAccount(namespace: string, name: string): Promise<void> {
    try {
      await this.call(`get serviceaccount ${namespace}/${name}`, () =>
        this.core.readNamespacedServiceAccount({ namespace, name }),
      );
    } catch (error) {
      if (!isKubeNotFound(error)) throw error;
      await this.call(`create serviceaccount ${namespace}/${name}`, () =>
        this.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, namespace } } }),
      );
    }
  }

  /** TokenRequest for a service account; returns the token and its lifetime in ms. */
  async requestToken(
    namespace: string,
    name: string,
    expirationSeconds: number,
  ): Promise<{ token: string; lifetimeMs: number }> {
    const tr = await this.call(`create token for ${namespace}/${name}`, () =>
      this.core.createNamespacedServiceAccountToken({
        namespace,
        name,
        body: { spec: { audiences: [], expirationSeconds } },
      }),
    );
    return {
      token: tr.status?.token ?? '',
      lifetimeMs: (tr.spec.expirationSeconds ?? expirationSeconds) * 1000,
    };
  }

  async listNodes(): Promise<V1Node[]> {
    return this.call('list nodes', async () => (await listAll((p) => this.core.listNode(p))).items);
  }

  readNode(name: string): Promise<V1Node> {
    return this.call(`get node ${name}`, () => this.core.readNode({ name }));
  }

  /** PUT with the object's resourceVersion: a 409 means someone else wrote first. */
  replaceNode(node: V1Node): Promise<V1Node> {
    const name = node.metadata?.name ?? '';
    return this.call(`update node ${name}`, () => this.core.replaceNode({ name, body: node }));
  }

  patchNode(name: string, patch: object): Promise<V1Node> {
    return this.call(`patch node ${name}`, () => this.core.patchNode({ name, body: patch }, MERGE));
  }

  /** Merge patch by default; `strategic` merges lists by key (conditions by type), as kubelets rely on. */
  patchNodeStatus(name: string, patch: object, strategy: 'merge' | 'strategic' = 'merge'): Promise<V1Node> {
    return this.call(`patch node ${name} status`, () =>
      this.core.patchNodeStatus({ name, body: patch }, strategy === 'merge' ? MERGE : STRATEGIC),
    );
  }

  async deleteNode(name: string): Promise<void> {
    await this.call(`delete node ${name}`, () => this.core.deleteNode({ name }));
  }

  async listServices(): Promise<V1Service[]> {
    return this.call(
      'list services',
      async () => (await listAll((p) => this.core.listServiceForAllNamespaces(p))).items,
    );
  }

  patchService(namespace: string, name: string, patch: object): Promise<V1Service> {
    return this.call(`patch service ${namespace}/${name}`, () =>
      this.core.patchNamespacedService({ namespace, name, body: patch }, MERGE),
    );
  }

  patchServiceStatus(namespace: string, name: string, patch: object): Promise<V1Service> {
    return this.call(`patch service ${namespace}/${name} status`, () =>
      this.core.patchNamespacedServiceStatus({ namespace, name, body: patch }, MERGE),
    );
  }

  createEvent(namespace: string, event: CoreV1Event): Promise<CoreV1Event> {
    return this.call('create event', () => this.core.createNamespacedEvent({ namespace, body: event }));
  }

  patchEvent(namespace: string, name: string, patch: object): Promise<CoreV1Event> {
    return this.call('patch event', () =>
      this.core.patchNamespacedEvent({ namespace, name, body: patch }, MERGE),
    );
  }
}

/** A one-context kubeconfig for a server and token; plain http needs skipTLSVerify in client-node. */
export function kubeConfigFor(endpoint: KubeEndpoint): KubeConfig {
  const kc = new KubeConfig();
  const http = endpoint.server.startsWith('http:');
  kc.loadFromOptions({
    clusters: [
      {
        name: 'sandbox',
        server: endpoint.server,
        skipTLSVerify: http,
        ...(endpoint.certificateAuthority
          ? { caData: Buffer.from(endpoint.certificateAuthority).toString('base64') }
          : {}),
      },
    ],
    users: [{ name: 'manager', token: endpoint.token }],
    contexts: [{ name: 'manager', cluster: 'sandbox', user: 'manager' }],
    currentContext: 'manager',
  });
  return kc;
}
