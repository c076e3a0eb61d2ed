import { constants } from 'node:crypto';
import {
  createServer as createHttpServer,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { RealClock, systemRandom, type Clock, type Random, InputError } from 'uproot';
import { bootstrapRbac } from './auth/bootstrap-rbac.js';
import { DEFAULT_ADMIN, TokenAuthenticator, type Identity } from './auth/identity.js';
import { RbacAuthorizer } from './auth/rbac-authorizer.js';
import { ServiceAccountTokens } from './auth/service-account-tokens.js';
import { storeRbacSource } from './auth/store-rbac-source.js';
import { Discovery } from './discovery/discovery.js';
import { OpenApi } from './discovery/openapi.js';
import { FaultInjector } from './faults/fault-injector.js';
import { createApiHandler } from './http/api-handler.js';
import type { VersionInfo } from './http/non-resource.js';
import { RequestStats, type ApiServerStats } from './http/request-stats.js';
import { builtinKinds } from './registry/builtin-kinds.js';
import { rancherCrds } from './registry/rancher-crds.js';
import { ResourceRegistry } from './registry/resource-registry.js';
import { ObjectStore } from './store/object-store.js';
import type { KubeconfigEntry } from './kubeconfig.js';
import { createServingCertificate } from './tls/self-signed-certificate.js';
import { WatchHub } from './watch/watch-hub.js';

export interface KubeApiServerOptions {
  /** Loopback only: `127.0.0.1` (default), `::1` or `localhost`. */
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /**
   * What `/version` reports; kubectl's dispatcher picks its binary from it. Default 1.32. A function is asked
   * on every request (a twin's control plane changes version as it rolls).
   */
  readonly version?: VersionSpec | (() => VersionSpec);
  /** Accepted bearer tokens; default one admin in `system:masters`. */
  readonly identities?: readonly Identity[];
  /** clusters.provisioning.cattle.io, clusters.management.cattle.io, helmcharts/helmchartconfigs (default true). */
  readonly preloadRancherCrds?: boolean;
  /** The bootstrap RBAC a real cluster starts with (default true). */
  readonly bootstrapRbac?: boolean;
  /** Source of uids, generated names and fault probabilities (default Math.random). */
  readonly random?: Random;
  /** Timestamps, watch timeouts and bookmarks (default real time). */
  readonly clock?: Clock;
  /** Changes kept for watch resumption and paged-list snapshots (default 10,000). */
  readonly watchWindow?: number;
  /** How often watches that allow bookmarks get one (default 60 s). */
  readonly bookmarkIntervalMs?: number;
  /**
   * Serve https with a generated CA (default true). kubectl only sends credentials to https servers
   * (client-go's clientcmd skips auth info otherwise), so plain http suits client-node only.
   */
  readonly tls?: boolean;
}

/** A running sandbox API server. */
export interface KubeApiServer {
  /** `https://127.0.0.1:<port>` (or `http://` with `tls: false`). */
  readonly url: string;
  readonly port: number;
  /** PEM of the CA that signed the serving certificate (undefined without TLS). */
  readonly certificateAuthority: string | undefined;
  /** A kubeconfig entry for this server (default: the first identity; names default to `sandbox`). */
  kubeconfigEntry(
    identity?: Identity | string,
    names?: { clusterName?: string; contextName?: string; namespace?: string },
  ): KubeconfigEntry;
  readonly version: VersionInfo;
  /** In-process access for seeding and for simulated controllers (no HTTP, no RBAC). */
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly faults: FaultInjector;
  /** Bound service account tokens: what TokenRequest issues, for in-process issuers (a kubelet's projected volume). */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** The identities tokens are accepted for (the first is the admin when none were configured). */
  identities(): readonly Identity[];
  /** Accepts one more token from now on. */
  addIdentity(identity: Identity): void;
  stats(): ApiServerStats;
  resetStats(): void;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export interface VersionSpec {
  readonly major?: string;
  readonly minor?: string;
  readonly gitVersion?: string;
}

function versionInfo(v: VersionSpec | undefined): VersionInfo {
  const git = v?.gitVersion ?? `v${v?.major ?? '1'}.${v?.minor ?? '32'}.4`;
  const m = /^v?(\d+)\.(\d+)/.exec(git);
  const major = v?.major ?? m?.[1] ?? '1';
  const minor = v?.minor ?? m?.[2] ?? '32';
  // apimachinery's version.Info has the emulation and min-compatibility fields from v0.33 (Kubernetes 1.33):
  // a binary emulates itself and stays compatible with the previous minor by default.
  const emulation =
    Number(major) > 1 || (Number(major) === 1 && Number(minor) >= 33)
      ? {
          emulationMajor: major,
          emulationMinor: minor,
          minCompatibilityMajor: major,
          minCompatibilityMinor: String(Number(minor) - 1),
        }
      : {};
  return { major, minor, gitVersion: git, ...emulation };
}

/** A VersionInfo that reads the source on every access, so each request sees the current version. */
function liveVersion(source: KubeApiServerOptions['version']): VersionInfo {
  if (typeof source !== 'function') return versionInfo(source);
  let lastSpec: VersionSpec | undefined;
  let last = versionInfo(undefined);
  const current = (): VersionInfo => {
    const spec = source();
    if (spec !== lastSpec) {
      lastSpec = spec;
      last = versionInfo(spec);
    }
    return last;
  };
  return {
    get major() {
      return current().major;
    },
    get minor() {
      return current().minor;
    },
    get gitVersion() {
      return current().gitVersion;
    },
    get emulationMajor() {
      return current().emulationMajor;
    },
    get emulationMinor() {
      return current().emulationMinor;
    },
    get minCompatibilityMajor() {
      return current().minCompatibilityMajor;
    },
    get minCompatibilityMinor() {
      return current().minCompatibilityMinor;
    },
  };
}

/** Fills a fresh store with what a new cluster has: namespaces, default service accounts, RBAC, CRDs. */
function seed(store: ObjectStore, options: KubeApiServerOptions): void {
  for (const name of DEFAULT_NAMESPACES) store.create('v1/namespaces', { metadata: { name } });
  for (const namespace of DEFAULT_NAMESPACES) {
    store.create('v1/serviceaccounts', { metadata: { name: 'default', namespace } }, { namespace });
  }
  if (options.bootstrapRbac ?? true) {
    for (const obj of bootstrapRbac()) {
      const resource = `${obj.kind!.toLowerCase()}s.rbac.authorization.k8s.io`;
      store.create(resource, obj, { namespace: obj.metadata?.namespace });
    }
  }
  if (options.preloadRancherCrds ?? true) {
    for (const crd of rancherCrds()) store.create('apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  }
}

/** The cluster's state: its kinds, its objects as a new cluster has them, and the clock and random they use. */
interface ClusterState {
  readonly clock: Clock;
  readonly random: Random;
  readonly version: VersionInfo;
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
}

/** Who may call and what they may do, and the request machinery over the state: watches, faults, stats. */
interface ApiServing {
  readonly identities: Identity[];
  readonly tokens: ServiceAccountTokens;
  readonly authenticator: TokenAuthenticator;
  readonly authorizer: RbacAuthorizer;
  readonly watches: WatchHub;
  readonly faults: FaultInjector;
  readonly stats: RequestStats;
  /** Responses held open (watches, hung requests), destroyed on close. */
  readonly held: Set<ServerResponse>;
}

/** The listening socket, http or https, with every raw connection tracked. */
interface Listener {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  readonly port: number;
  readonly urlHost: string;
  readonly serving: ReturnType<typeof createServingCertificate> | undefined;
}

/**
 * Starts the sandbox Kubernetes API server on loopback. Real kubectl (1.32) and @kubernetes/client-node
 * talk to it unchanged over plain http with bearer tokens (see writeKubeconfig).
 */
export async function startKubeApiServer(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const host = loopbackHost(options.host);
  const state = clusterState(options);
  const api = apiServing(state, options);
  let address = '';
  const handler = createApiHandler({
    store: state.store,
    tokens: api.tokens,
    registry: state.registry,
    watches: api.watches,
    clock: state.clock,
    authenticator: api.authenticator,
    authorizer: api.authorizer,
    faults: api.faults,
    stats: api.stats,
    held: api.held,
    realClock: new RealClock(),
    discovery: new Discovery(state.registry, () => address),
    openapi: new OpenApi(state.registry, () => state.version.gitVersion),
    version: state.version,
  });
  const listener = await listen(handler, host, options);
  address = `${listener.urlHost}:${listener.port}`;
  return kubeApiServerHandle(state, api, listener);
}

function loopbackHost(host = '127.0.0.1'): string {
  if (!LOOPBACK.has(host)) {
    throw new InputError(
      'UP-SANDBOX-APISERVER-HOST',
      `the sandbox API server only listens on loopback, not "${host}"`,
      {
        location: { field: 'host', value: host },
        hint: 'use 127.0.0.1 (the default), ::1 or localhost',
      },
    );
  }
  return host;
}

function clusterState(options: KubeApiServerOptions): ClusterState {
  const clock = options.clock ?? new RealClock();
  const random = options.random ?? systemRandom;
  const version = liveVersion(options.version);
  const registry = new ResourceRegistry();
  for (const t of builtinKinds()) registry.add(t);
  const store = new ObjectStore(registry, { clock, random, watchWindow: options.watchWindow ?? 10_000 });
  seed(store, options);
  return { clock, random, version, registry, store };
}

function apiServing(state: ClusterState, options: KubeApiServerOptions): ApiServing {
  const { clock, random, store, registry } = state;
  const identities: Identity[] = [...(options.identities?.length ? options.identities : [DEFAULT_ADMIN])];
  const tokens = new ServiceAccountTokens(clock, random);
  const authenticator = new TokenAuthenticator(identities, (token) =>
    tokens.authenticate(token, {
      serviceAccount: (namespace, name) => store.get('v1/serviceaccounts', namespace, name),
      object: (kind, namespace, name) =>
        kind === 'Node'
          ? store.get('v1/nodes', '', name)
          : store.get(kind === 'Pod' ? 'v1/pods' : 'v1/secrets', namespace, name),
    }),
  );
  const authorizer = new RbacAuthorizer(storeRbacSource(store));
  const watches = new WatchHub(store, registry, clock, options.bookmarkIntervalMs ?? 60_000);
  const faults = new FaultInjector(random, (filter) => watches.drop(filter));
  return {
    identities,
    tokens,
    authenticator,
    authorizer,
    watches,
    faults,
    stats: new RequestStats(),
    held: new Set<ServerResponse>(),
  };
}

async function listen(
  handler: RequestListener,
  host: string,
  options: KubeApiServerOptions,
): Promise<Listener> {
  const tls = options.tls ?? true;
  const serving = tls ? createServingCertificate(Date.now()) : undefined;
  const server = serving
    ? createHttpsServer(
        {
          keepAliveTimeout: 65_000,
          key: serving.privateKey,
          cert: serving.certificate,
          // No client here resumes sessions (client-go keeps no session cache; client-node 1.4 makes a new
          // Agent, so a new connection and an empty cache, per call): issuing tickets is handshake work for
          // nothing (~10% of the server's cost of a new connection).
          secureOptions: constants.SSL_OP_NO_TICKET,
        },
        handler,
      )
    : createHttpServer({ keepAliveTimeout: 65_000 }, handler);
  // Raw TCP sockets, tracked from 'connection' so close() also ends connections still in the TLS handshake.
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return { server, sockets, port, urlHost: host === '::1' ? '[::1]' : host, serving };
}

function kubeApiServerHandle(state: ClusterState, api: ApiServing, listener: Listener): KubeApiServer {
  const { identities, authenticator, watches, authorizer, held, stats } = api;
  const { server, sockets, serving, port } = listener;
  let closed: Promise<void> | undefined;
  const url = `${serving ? 'https' : 'http'}://${listener.urlHost}:${port}`;
  return {
    url,
    port,
    certificateAuthority: serving?.caCertificate,
    kubeconfigEntry(identity, names = {}) {
      const id =
        typeof identity === 'string'
          ? identities.find((i) => i.name === identity)
          : (identity ?? identities[0]);
      if (!id) {
        throw new InputError('UP-SANDBOX-IDENTITY-UNKNOWN', `no identity named "${String(identity)}"`, {
          location: { field: 'identity', value: identity },
          hint: `use one of: ${identities.map((i) => i.name).join(', ')}`,
        });
      }
      return {
        clusterName: names.clusterName ?? 'sandbox',
        contextName: names.contextName ?? 'sandbox',
        server: url,
        identity: id,
        ...(serving ? { certificateAuthority: serving.caCertificate } : {}),
        ...(names.namespace ? { namespace: names.namespace } : {}),
      };
    },
    version: state.version,
    store: state.store,
    registry: state.registry,
    faults: api.faults,
    serviceAccountTokens: api.tokens,
    identities: () => [...identities],
    addIdentity(identity) {
      identities.push(identity);
      authenticator.add(identity);
    },
    stats: () => stats.snapshot(watches.size),
    resetStats: () => stats.reset(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        watches.close();
        authorizer.close();
        for (const res of held) res.destroy();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closed;
    },
  };
}
