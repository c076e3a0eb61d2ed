import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AWS from 'aws-sdk';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { loadScenario } from '../../../packages/sandbox/src/scenarios/index.js';
import { startTwin, type Twin } from '../../../packages/sandbox/src/twin/index.js';

/**
 * The AWS accounts of the three twin kinds, driven by the AWS SDK for JavaScript v2 (`aws-sdk`), whose
 * serializers and parsers share nothing with v3's: every request is built and every answer read by code we
 * did not write. Where v2 and the emulator disagree, the emulator is wrong until upstream (the SDK models,
 * botocore, moto) shows otherwise.
 */
export const TWIN_KINDS = ['rke2-intree', 'rke-intree', 'kubeadm-intree'] as const;

export interface V2Account {
  readonly twin: Twin;
  readonly clusterId: string;
  readonly instanceIds: readonly string[];
  readonly ec2: AWS.EC2;
  readonly elb: AWS.ELB;
  readonly elbv2: AWS.ELBv2;
  readonly iam: AWS.IAM;
  readonly sts: AWS.STS;
  close(): Promise<void>;
}

export async function startAccount(scenario: (typeof TWIN_KINDS)[number]): Promise<V2Account> {
  const dir = mkdtempSync(join(tmpdir(), `uproot-conformance-${scenario}-`));
  // The clock at now: the SDK judges the expiry of instance-role credentials against its own wall clock.
  const twin = await startTwin({
    scenario: loadScenario(scenario).scenario,
    clock: new VirtualClock(Date.now()),
    dir,
  });
  const config = {
    endpoint: twin.aws.url,
    region: twin.aws.region,
    credentials: new AWS.Credentials(
      twin.aws.adminCredentials.accessKeyId,
      twin.aws.adminCredentials.secretAccessKey,
    ),
    maxRetries: 0,
  };
  return {
    twin,
    clusterId: twin.layout.clusterId,
    instanceIds: twin.layout.instances.map((i) => i.instanceId),
    ec2: new AWS.EC2(config),
    elb: new AWS.ELB(config),
    elbv2: new AWS.ELBv2(config),
    iam: new AWS.IAM(config),
    sts: new AWS.STS(config),
    close: async () => {
      await twin.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The error of a call that must fail (code and message as v2 parsed them). */
export async function v2Failure(request: { promise(): Promise<unknown> }): Promise<AWS.AWSError> {
  try {
    await request.promise();
  } catch (error) {
    return error as AWS.AWSError;
  }
  throw new Error('expected the call to fail');
}
