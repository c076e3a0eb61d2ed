/**
 * The SDK v3 clients preflight reads with: default credential chain (fromNodeProviderChain: environment,
 * profiles, SSO, container and instance metadata) unless the environment holds static keys, endpoint
 * overrides from AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> (as the SDK itself reads them, but from the
 * given environment), and a middleware that counts every HTTP attempt by call.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingClient } from '@aws-sdk/client-elastic-load-balancing';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { IAMClient } from '@aws-sdk/client-iam';
import { STSClient } from '@aws-sdk/client-sts';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { CallCounter } from '../kube/request-counter.js';
import { retryStrategy } from './retry-strategy.js';

export interface AwsClients {
  readonly region: string;
  readonly ec2: EC2Client;
  readonly iam: IAMClient;
  readonly sts: STSClient;
  readonly elb: ElasticLoadBalancingClient;
  readonly elbv2: ElasticLoadBalancingV2Client;
  destroy(): void;
}

export interface AwsClientOptions {
  readonly region: string;
  /** The environment to read keys, profile and endpoints from (the CLI passes its process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly counter?: CallCounter;
  /** Attempts per call including the first (default 3, the SDK's). */
  readonly maxAttempts?: number;
  /** Delay before retry n (default: the SDK's own backoff). Tests pass () => 0. */
  readonly retryDelayMs?: (retry: number) => number;
}

/** serviceId → the suffix of AWS_ENDPOINT_URL_<SUFFIX>. */
const ENDPOINT_VARS = {
  ec2: 'EC2',
  iam: 'IAM',
  sts: 'STS',
  elb: 'ELASTIC_LOAD_BALANCING',
  elbv2: 'ELASTIC_LOAD_BALANCING_V2',
} as const;

/** Prefixes of the counted calls: `ec2:DescribeInstances`, `elb:DescribeLoadBalancers` (classic), `elbv2:…`. */
const PREFIX = { ec2: 'ec2', iam: 'iam', sts: 'sts', elb: 'elb', elbv2: 'elbv2' } as const;

export function endpointFor(
  service: keyof typeof ENDPOINT_VARS,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (/^true$/i.test(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? '')) return undefined;
  return env[`AWS_ENDPOINT_URL_${ENDPOINT_VARS[service]}`] || env.AWS_ENDPOINT_URL || undefined;
}

export function createAwsClients(options: AwsClientOptions): AwsClients {
  const env = options.env ?? process.env;
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : fromNodeProviderChain(env.AWS_PROFILE ? { profile: env.AWS_PROFILE } : {});
  const config = (service: keyof typeof ENDPOINT_VARS) => {
    const endpoint = endpointFor(service, env);
    return {
      region: options.region,
      credentials,
      maxAttempts: options.maxAttempts ?? 3,
      ...(options.retryDelayMs
        ? { retryStrategy: retryStrategy(options.maxAttempts ?? 3, options.retryDelayMs) }
        : {}),
      ...(endpoint ? { endpoint } : {}),
    };
  };
  const clients = {
    ec2: new EC2Client(config('ec2')),
    iam: new IAMClient(config('iam')),
    sts: new STSClient(config('sts')),
    elb: new ElasticLoadBalancingClient(config('elb')),
    elbv2: new ElasticLoadBalancingV2Client(config('elbv2')),
  };
  if (options.counter) {
    for (const [key, client] of Object.entries(clients) as [
      keyof typeof clients,
      (typeof clients)[keyof typeof clients],
    ][]) {
      countRequests(client, PREFIX[key], options.counter);
    }
  }
  return {
    region: options.region,
    ...clients,
    destroy: () => Object.values(clients).forEach((c) => c.destroy()),
  };
}

interface Stack {
  middlewareStack: {
    addRelativeTo(
      middleware: (
        next: (args: unknown) => Promise<unknown>,
        context: { commandName?: string },
      ) => (args: unknown) => Promise<unknown>,
      options: { relation: 'after'; toMiddleware: string; name: string },
    ): void;
  };
}

/** Counts each HTTP attempt (placed after the retry middleware, so retries count too). */
function countRequests(client: unknown, prefix: string, counter: CallCounter): void {
  (client as Stack).middlewareStack.addRelativeTo(
    (next, context) => async (args) => {
      counter.count(`${prefix}:${(context.commandName ?? 'Unknown').replace(/Command$/, '')}`);
      return next(args);
    },
    { relation: 'after', toMiddleware: 'retryMiddleware', name: 'uprootRequestCounter' },
  );
}
