import type http from 'node:http';
import { RealClock, systemRandom, type Clock, type Random, InputError } from 'uproot';
import { Authorizer } from './auth/authorizer.js';
import type { AwsCredentials, AwsPrincipal } from './auth/principal.js';
import { SANDBOX_ADMIN_CREDENTIALS } from './auth/credential-store.js';
import { FaultInjector } from './faults/fault-injector.js';
import { handleApiRequest, type ApiDependencies } from './http/api-handler.js';
import { createHandlerServer, listen, send } from './http/http-server.js';
import { ServiceRegistry } from './http/service-registry.js';
import { handleImds } from './imds/imds-handler.js';
import { parseImdsPath } from './imds/imds-path.js';
import { ImdsTokens } from './imds/imds-tokens.js';
import { hopsFrom, ImdsNetwork } from './imds/imds-network.js';
import { InstanceEndpoints } from './imds/instance-endpoints.js';
import { RequestLog } from './log/request-log.js';
import { loadSeed } from './seed/load-seed.js';
import { parseAwsSeed } from './seed/parse-seed.js';
import type { AwsSeed } from './seed/seed-schema.js';
import { AwsState } from './state/aws-state.js';

export interface AwsEmulatorOptions {
  /** The account to simulate; an empty account (no VPC) when omitted. See emptyAccountSeed(). */
  readonly seed?: AwsSeed;
  /** Where the seed came from, for error messages. */
  readonly seedFile?: string;
  /** Time for token and credential expiry, terminated-instance retention and injected latency. */
  readonly clock?: Clock;
  /** Chance for probabilistic faults; seed it (seededRandom) for reproducible runs. */
  readonly random?: Random;
  /** Loopback only; 127.0.0.1 when omitted. */
  readonly host?: string;
  /** 0 (any free port) when omitted. */
  readonly port?: number;
  /** How long a terminated instance stays visible (clock ms). One hour when omitted, as on AWS. */
  readonly terminatedRetentionMs?: number;
  /** Lifetime of issued temporary credentials (clock ms). Six hours when omitted. */
  readonly credentialTtlMs?: number;
  /** Request log entries kept (counters are always exact). */
  readonly requestLogCapacity?: number;
}

export interface AwsEmulator {
  /** `http://127.0.0.1:PORT`: the endpoint for every service (`AWS_ENDPOINT_URL`). */
  readonly url: string;
  readonly port: number;
  readonly region: string;
  readonly accountId: string;
  /** Typed in-process access to instances, tags, policies and load balancers; changes show in the next call. */
  readonly state: AwsState;
  readonly faults: FaultInjector;
  readonly log: RequestLog;
  /** The dummy key that maps to the account's admin. */
  readonly adminCredentials: AwsCredentials;
  /**
   * The IMDS base URL for one instance on the shared port: `http://127.0.0.1:PORT/_instance/<id>/`. Works
   * with `@aws-sdk/ec2-metadata-service`'s MetadataService and with clients that keep the endpoint's path.
   */
  imdsEndpoint(instanceId: string): string;
  /**
   * The instance's own metadata endpoint, `http://127.1.x.y:PORT/`, serving it at the root as
   * 169.254.169.254 does on EC2: for every client, including those that drop the endpoint's path (the SDK
   * credential chain's `fromInstanceMetadata`, aws-sdk v2, the AWS CLI). Opened on first use, closed with the
   * emulator (src/sandbox/aws/imds/instance-endpoints.ts).
   */
  openInstanceImds(instanceId: string): Promise<string>;
  /** Endpoints opened so far: instance id → URL. */
  instanceImdsEndpoints(): Promise<ReadonlyMap<string, string>>;
  /** What the network did with IMDS responses (lost token responses), for the twin's simulated clients. */
  readonly imdsNetwork: ImdsNetwork;
  /** Keys that sign as the principal: the admin key, a role session, or an instance's IMDS credentials. */
  credentialsFor(principal: AwsPrincipal): AwsCredentials;
  close(): Promise<void>;
}

/**
 * Path and query of a request target. Not `new URL()`: a target such as `//latest/meta-data` (what IMDS clients
 * send when the endpoint ends in a slash) would parse as a host name.
 */
function splitTarget(target: string | undefined): { path: string; query: string } {
  const raw = target ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? { path: raw, query: '' } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

/** Answers an IMDS request for one instance (undefined: the caller's own, by its address). */
type ImdsServe = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
  instanceId: string | undefined,
  latestPath: string,
) => Promise<void>;

/** Starts the AWS API emulator (EC2, ELB, ELBv2, IAM, STS, Auto Scaling and IMDS) on a loopback port. */
export async function startAwsEmulator(options: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const seed = parseAwsSeed(options.seed ?? {}, options.seedFile ? { file: options.seedFile } : {});
  const clock = options.clock ?? new RealClock();
  const host = loopbackHost(options.host);
  const state = new AwsState({
    accountId: seed.accountId,
    region: seed.region,
    enforceIam: seed.enforceIam,
    adminUserName: seed.adminUserName,
    now: () => clock.now(),
    terminatedRetentionMs: options.terminatedRetentionMs ?? 60 * 60 * 1000,
    credentialTtlMs: options.credentialTtlMs ?? 6 * 60 * 60 * 1000,
  });
  loadSeed(state, seed, options.seedFile);
  const authorizer = new Authorizer(state.iam, state.accountId);
  const deps: ApiDependencies = {
    state,
    registry: new ServiceRegistry(authorizer),
    authorizer,
    faults: new FaultInjector(options.random ?? systemRandom),
    log: new RequestLog(options.requestLogCapacity),
    clock,
  };
  const imdsNetwork = new ImdsNetwork();
  const serveImds = imdsServer(deps, new ImdsTokens(state.ids, () => clock.now()), imdsNetwork);

  const main = await listen(host, options.port ?? 0, async (request, body, response) => {
    const { path, query } = splitTarget(request.url);
    const imds = parseImdsPath(path);
    if (imds.latestPath !== undefined) return serveImds(request, response, imds.instanceId, imds.latestPath);
    if (imds.instanceId !== undefined)
      return send(response, 404, 'Not Found', { 'content-type': 'text/plain' });
    const answer = await handleApiRequest(deps, {
      method: request.method ?? 'POST',
      query,
      headers: request.headers,
      body,
    });
    send(response, answer.status, answer.body, answer.headers);
  });
  const endpoints = instanceEndpoints(serveImds);
  const url = `http://${host}:${main.port}`;
  return {
    url,
    port: main.port,
    region: state.region,
    accountId: state.accountId,
    state,
    faults: deps.faults,
    log: deps.log,
    imdsNetwork,
    adminCredentials: SANDBOX_ADMIN_CREDENTIALS,
    imdsEndpoint: (instanceId) => `${url}/_instance/${encodeURIComponent(instanceId)}/`,
    openInstanceImds: async (instanceId) => (await endpoints.open(instanceId)).url,
    instanceImdsEndpoints: () => endpoints.opened(),
    credentialsFor: (principal) => state.credentialsFor(principal),
    close: async () => {
      await Promise.all([main.close(), endpoints.close()]);
    },
  };
}

function loopbackHost(host = '127.0.0.1'): string {
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host)) {
    // The emulator accepts any key and serves credentials; it must never be reachable from the network.
    throw new InputError(
      'UP-AWS-EMULATOR-HOST',
      `the AWS emulator listens on loopback only, not on ${host}`,
      {
        location: { field: 'host', value: host },
        hint: 'use 127.0.0.1 (the default)',
      },
    );
  }
  return host;
}

/**
 * IMDS as the network delivers it: faults decided first, the request logged, and an answer whose TTL ran
 * out never reaching the caller.
 */
function imdsServer(deps: ApiDependencies, tokens: ImdsTokens, imdsNetwork: ImdsNetwork): ImdsServe {
  const { state, faults, log, clock } = deps;
  return async (request, response, instanceId, latestPath) => {
    const method = request.method ?? 'GET';
    const { remoteAddress, remotePort } = request.socket;
    const decision = faults.decide({ service: 'imds', action: `${method} ${latestPath}` });
    if (decision.latencyMs > 0) await clock.sleep(decision.latencyMs);
    const result = decision.error
      ? ({
          kind: 'answer',
          status: decision.error.status,
          body: decision.error.message,
          headers: { 'content-type': 'text/plain' },
        } as const)
      : handleImds(state, tokens, {
          method,
          path: latestPath,
          headers: request.headers,
          instanceId,
          hops: hopsFrom(remoteAddress),
        });
    log.record({
      at: clock.now(),
      service: 'imds',
      action: `${method} ${latestPath}`,
      instanceId,
      status: result.kind === 'answer' ? result.status : 0,
      errorCode: result.kind === 'lost' ? 'lost' : result.status >= 300 ? String(result.status) : undefined,
      fault: decision.applied.length > 0 ? decision.applied.join(',') : undefined,
    });
    if (result.kind === 'lost') {
      // The answer dies on the way (its TTL ran out): the caller hears nothing and gives up on its own timeout.
      if (remoteAddress !== undefined && remotePort !== undefined) {
        imdsNetwork.responseLost(remoteAddress, remotePort);
        request.socket.once('close', () => imdsNetwork.forget(remoteAddress, remotePort));
      }
      return;
    }
    send(response, result.status, method === 'HEAD' ? '' : result.body, result.headers);
  };
}

/** Each instance's own metadata endpoint (its address tells whose), serving IMDS at the root. */
function instanceEndpoints(serveImds: ImdsServe): InstanceEndpoints {
  const endpointServer = createHandlerServer(async (request, _body, response) => {
    const { localAddress, localPort } = request.socket;
    const instanceId = endpoints.instanceAt(localAddress, localPort);
    const { latestPath } = parseImdsPath(splitTarget(request.url).path);
    if (latestPath === undefined || instanceId === undefined)
      return send(response, 404, 'Not Found', { 'content-type': 'text/plain' });
    return serveImds(request, response, instanceId, latestPath);
  });
  const endpoints = new InstanceEndpoints(endpointServer);
  return endpoints;
}
