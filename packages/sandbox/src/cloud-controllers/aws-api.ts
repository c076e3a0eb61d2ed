import { EC2Client } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingClient } from '@aws-sdk/client-elastic-load-balancing';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { Clock } from 'uproot';
import { GoAwsError } from './ec2-metadata.js';

export interface AwsStaticCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** Static keys, or a provider (e.g. the instance role's, refreshed from IMDS). Never logged. */
export type AwsCredentialsSource = AwsStaticCredentials | (() => Promise<AwsStaticCredentials>);

/** Where a manager reaches AWS and with which credentials (the node's instance role, as on a real node). */
export interface AwsEndpoint {
  readonly endpoint: string;
  readonly region?: string;
  readonly credentials: AwsCredentialsSource;
  /** The instance the manager runs on (IMDS instance-id); found by node name when absent. */
  readonly instanceId?: string;
}

/** A failed AWS call: `code` is the service's error code (InvalidInstanceID.NotFound, UnauthorizedOperation...). */
export class AwsCallError extends Error {
  readonly code: string;
  readonly status: number | undefined;

  constructor(code: string, message: string, status: number | undefined, cause: unknown) {
    super(message, { cause });
    this.name = 'AwsCallError';
    this.code = code;
    this.status = status;
  }

  /** As the Go SDK v1's awserr prints it (and so the CCM's logs and events): `Code: message`. */
  get text(): string {
    return `${this.code}: ${this.message}`;
  }
}

export function toAwsCallError(error: unknown): AwsCallError {
  if (error instanceof AwsCallError) return error;
  // The credential chain's own error (no valid providers): keep its whole awserr text.
  if (error instanceof GoAwsError)
    return new AwsCallError(error.code, error.text.slice(error.code.length + 2), undefined, error);
  const e = error as {
    name?: string;
    Code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  return new AwsCallError(
    e.Code ?? e.name ?? 'UnknownError',
    e.message ?? String(error),
    e.$metadata?.httpStatusCode,
    error,
  );
}

export const awsErrorText = (error: unknown): string => toAwsCallError(error).text;

/**
 * The three AWS clients the cloud controllers use, pointed at one endpoint. Retries are off (maxAttempts 1):
 * the SDK would back off in real time, which a virtual clock cannot see; the controllers retry on their own
 * period instead, as the CCM's work queues do.
 */
export class AwsApi {
  readonly ec2: EC2Client;
  readonly elb: ElasticLoadBalancingClient;
  readonly elbv2: ElasticLoadBalancingV2Client;
  readonly region: string;
  private readonly clock: Clock;
  private readonly provider: (() => Promise<unknown>) | undefined;

  constructor(endpoint: AwsEndpoint, clock: Clock) {
    this.region = endpoint.region ?? 'us-east-1';
    const credentials = endpoint.credentials;
    this.provider = typeof credentials === 'function' ? credentials : undefined;
    const config = {
      region: this.region,
      endpoint: endpoint.endpoint,
      credentials: typeof credentials === 'function' ? credentials : { ...credentials },
      maxAttempts: 1,
    };
    this.ec2 = new EC2Client(config);
    this.elb = new ElasticLoadBalancingClient(config);
    this.elbv2 = new ElasticLoadBalancingV2Client(config);
    this.clock = clock;
  }

  /** Sends through any of the three clients, tracked on the clock; errors become AwsCallError. */
  async send<T>(call: () => Promise<T>): Promise<T> {
    try {
      // Credentials first, outside the tracked call: the instance role's come from IMDS through a client that
      // tracks its own exchanges and waits out a lost answer's timeout on the clock, which a virtual clock
      // held still by an enclosing tracked call would never reach. The call then finds them cached.
      if (this.provider) await this.provider();
      return await this.clock.track(call());
    } catch (error) {
      throw toAwsCallError(error);
    }
  }

  destroy(): void {
    this.ec2.destroy();
    this.elb.destroy();
    this.elbv2.destroy();
  }
}
