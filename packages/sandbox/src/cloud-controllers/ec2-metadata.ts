import type { Clock } from 'uproot';
import { sendImdsRequest } from '../aws/index.js';

/**
 * The EC2 metadata client the aws-cloud-controller-manager (and the in-tree provider) build on: aws-sdk-go
 * v1's ec2metadata (v1.44, what cloud-provider-aws v1.26–v1.33 vendor), over real HTTP from the process's
 * network position:
 * - every request first gets a session token (`PUT /latest/api/token`, TTL 21600 s) unless token retrieval
 *   is off; a failed PUT is not fatal: on 403/404/405 or a timeout the client turns token retrieval off
 *   and goes on without a token (IMDSv1); a 401 on a later request turns it back on
 *   (aws/ec2metadata/token_provider.go);
 * - each attempt times out after 1 s, with up to 2 retries for timeouts, connection errors and 5xx
 *   (aws/ec2metadata/service.go NewClient: `Timeout: 1 * time.Second`, `MaxRetries: 2`);
 * - the endpoint's path is dropped (NewClient: "Remove path from the endpoint");
 * - a non-2xx answer is `EC2MetadataError: failed to make EC2Metadata request\n<body>` with the status
 *   (service.go unmarshalError), printed the awserr way (aws/awserr/types.go SprintError).
 * Retry backoff (30 ms doubling, jittered) is modelled without the jitter.
 */
export interface Ec2MetadataClientOptions {
  /** The node's metadata endpoint, as 169.254.169.254 is on EC2: `http://127.1.0.3:PORT/`. */
  readonly endpoint: string;
  readonly clock: Clock;
  /** Set for a process on the pod network: the loopback address its connections come from. */
  readonly localAddress?: string;
  /**
   * How the twin's network tells a simulated client that a response was lost on the way, so a virtual
   * clock can move on to the client's timeout (the emulator's `imdsNetwork`).
   */
  readonly network: {
    whenLost(localAddress: string, localPort: number): Promise<void>;
    forget(address: string, port: number): void;
  };
}

/** An aws-sdk-go error: `Code: message`, then `\n\tstatus code: N, request id: ` and `\ncaused by: ...`. */
export class GoAwsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode?: number,
    readonly origErr?: GoAwsError,
  ) {
    super(message);
    this.name = code;
  }

  /** awserr.SprintError, as the CCM logs it. */
  get text(): string {
    let out = `${this.code}: ${this.message}`;
    if (this.statusCode !== undefined) out += `\n\tstatus code: ${this.statusCode}, request id: `;
    if (this.origErr) out += `\ncaused by: ${this.origErr.text}`;
    return out;
  }
}

const ATTEMPTS = 3;
const TIMEOUT_MS = 1_000;
const TOKEN_TTL_SECONDS = 21_600;

interface Exchange {
  readonly status: number;
  readonly body: string;
}

export class Ec2MetadataClient {
  private readonly base: URL;
  private tokenDisabled = false;
  private token: { value: string; expiresAt: number } | undefined;

  constructor(private readonly options: Ec2MetadataClientOptions) {
    const url = new URL(options.endpoint);
    this.base = new URL(`${url.protocol}//${url.host}`);
  }

  /** GetMetadata: `/latest/meta-data/<path>`. */
  getMetadata(path: string): Promise<string> {
    return this.get(`/latest/meta-data/${path}`);
  }

  /** GetDynamicData: `/latest/dynamic/<path>`. */
  getDynamicData(path: string): Promise<string> {
    return this.get(`/latest/dynamic/${path}`);
  }

  /** Region(): from the instance identity document (aws/ec2metadata/api.go RegionWithContext). */
  async region(): Promise<string> {
    let text: string;
    try {
      text = await this.getDynamicData('instance-identity/document');
    } catch (error) {
      throw new GoAwsError(
        'EC2MetadataRequestError',
        'failed to get EC2 instance identity document',
        undefined,
        asGoError(error),
      );
    }
    const region = (JSON.parse(text) as { region?: string }).region;
    if (!region) throw new GoAwsError('EC2MetadataError', 'invalid region received for ec2metadata instance');
    return region;
  }

  private async get(path: string): Promise<string> {
    const headers: Record<string, string> = {};
    const token = await this.sessionToken();
    if (token !== undefined) headers['x-aws-ec2-metadata-token'] = token;
    const reply = await this.withRetries('GET', path, headers);
    if (reply.status === 401) {
      // enableTokenProviderHandler: a 401 turns token retrieval back on for the next request.
      this.tokenDisabled = false;
      this.token = undefined;
    }
    if (reply.status >= 300) {
      throw new GoAwsError(
        'EC2MetadataError',
        `failed to make EC2Metadata request\n${reply.body}`,
        reply.status,
      );
    }
    return reply.body;
  }

  /** fetchTokenHandler: the cached token, a new one, or none (token retrieval off, or it failed). */
  private async sessionToken(): Promise<string | undefined> {
    if (this.tokenDisabled) return undefined;
    if (this.token && this.options.clock.now() < this.token.expiresAt) return this.token.value;
    let reply: Exchange;
    try {
      reply = await this.withRetries('PUT', '/latest/api/token', {
        'x-aws-ec2-metadata-token-ttl-seconds': String(TOKEN_TTL_SECONDS),
      });
    } catch {
      // The PUT timed out or could not be sent: fall back to IMDSv1 for good.
      this.tokenDisabled = true;
      return undefined;
    }
    if (reply.status === 403 || reply.status === 404 || reply.status === 405) {
      this.tokenDisabled = true;
      return undefined;
    }
    if (reply.status === 400)
      throw new GoAwsError('EC2MetadataError', `failed to make EC2Metadata request\n${reply.body}`, 400);
    if (reply.status >= 300) return undefined;
    // ttlExpirationWindow: the SDK renews 30 s early.
    this.token = {
      value: reply.body,
      expiresAt: this.options.clock.now() + (TOKEN_TTL_SECONDS - 30) * 1000,
    };
    return this.token.value;
  }

  private async withRetries(
    method: string,
    path: string,
    headers: Record<string, string>,
  ): Promise<Exchange> {
    let last: GoAwsError | undefined;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await this.options.clock.sleep(30 * 2 ** (attempt - 1));
      try {
        const reply = await this.exchange(method, path, headers);
        if (reply.status < 500 || attempt === ATTEMPTS - 1) return reply;
      } catch (error) {
        last = asGoError(error);
      }
    }
    throw last ?? new GoAwsError('RequestError', 'send request failed');
  }

  /**
   * One HTTP attempt with the SDK's 1 s timeout, on the clock. The exchange is tracked (a virtual clock
   * stands still while it is in flight) until the answer arrives or the twin's network reports it lost;
   * then the client waits out its timeout on the clock and gives up, as a real one would.
   */
  private async exchange(method: string, path: string, headers: Record<string, string>): Promise<Exchange> {
    const { clock, network, localAddress } = this.options;
    const url = new URL(path, this.base);
    const started = clock.now();
    const { request, reply } = sendImdsRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method,
      headers,
      agent: false,
      ...(localAddress ? { localAddress } : {}),
    });
    let local: { address: string; port: number } | undefined;
    const lost = new Promise<'lost'>((resolve) =>
      request.on('socket', (socket) =>
        socket.once('connect', () => {
          local = { address: socket.localAddress ?? '', port: socket.localPort ?? 0 };
          void network.whenLost(local.address, local.port).then(() => resolve('lost'));
        }),
      ),
    );
    const outcome = Promise.race([
      reply.catch((error: unknown) => Promise.reject(sendFailed(method, url, error as Error))),
      lost,
    ]);
    try {
      const result = await clock.track(outcome);
      if (result !== 'lost') return result;
      await clock.sleep(Math.max(0, started + TIMEOUT_MS - clock.now()));
      throw new GoAwsError(
        'RequestError',
        'send request failed',
        undefined,
        new GoAwsError(
          `${goMethod(method)} "${url.href}"`,
          'context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        ),
      );
    } finally {
      if (local) network.forget(local.address, local.port);
      request.destroy();
    }
  }
}

const goMethod = (method: string): string => method.charAt(0) + method.slice(1).toLowerCase();

function sendFailed(method: string, url: URL, error: Error): GoAwsError {
  return new GoAwsError(
    'RequestError',
    'send request failed',
    undefined,
    new GoAwsError(`${goMethod(method)} "${url.href}"`, error.message),
  );
}

export function asGoError(error: unknown): GoAwsError {
  if (error instanceof GoAwsError) return error;
  return new GoAwsError('RequestError', error instanceof Error ? error.message : String(error));
}
