import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingClient } from '@aws-sdk/client-elastic-load-balancing';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { IAMClient } from '@aws-sdk/client-iam';
import { STSClient } from '@aws-sdk/client-sts';
import { afterEach } from 'vitest';
import {
  startAwsEmulator,
  type AwsCredentials,
  type AwsEmulator,
  type AwsEmulatorOptions,
} from '../../../packages/sandbox/src/aws/index.js';

// Tests never reach for a real instance metadata service.
process.env.AWS_EC2_METADATA_DISABLED = 'true';

export interface Clients {
  readonly ec2: EC2Client;
  readonly elb: ElasticLoadBalancingClient;
  readonly elbv2: ElasticLoadBalancingV2Client;
  readonly iam: IAMClient;
  readonly sts: STSClient;
  readonly autoscaling: AutoScalingClient;
}

/** Real SDK clients pointed at the emulator, with no retries unless asked for. */
export function clientsFor(
  emulator: AwsEmulator,
  credentials: AwsCredentials = emulator.adminCredentials,
  maxAttempts = 1,
): Clients {
  const config = {
    region: emulator.region,
    endpoint: emulator.url,
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
    },
    maxAttempts,
  };
  return {
    ec2: new EC2Client(config),
    elb: new ElasticLoadBalancingClient(config),
    elbv2: new ElasticLoadBalancingV2Client(config),
    iam: new IAMClient(config),
    sts: new STSClient(config),
    autoscaling: new AutoScalingClient(config),
  };
}

const running: AwsEmulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

/** Starts an emulator that is closed after the test. */
export async function emulatorFor(
  options: AwsEmulatorOptions = {},
): Promise<{ emulator: AwsEmulator; clients: Clients }> {
  const emulator = await startAwsEmulator(options);
  running.push(emulator);
  return { emulator, clients: clientsFor(emulator) };
}

/** The error an SDK call threw, for asserting its name and HTTP status. */
export async function failureOf(
  promise: Promise<unknown>,
): Promise<Error & { $metadata: { httpStatusCode?: number; attempts?: number }; $fault?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { $metadata: { httpStatusCode?: number; attempts?: number }; $fault?: string };
  }
  throw new Error('expected the call to fail');
}

export const allowAll = (actions: string | string[]): Record<string, unknown> => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: actions, Resource: '*' }],
});
