import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  ElasticLoadBalancingV2Client,
  DescribeLoadBalancersCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { MetadataService } from '@aws-sdk/ec2-metadata-service';
import { afterEach, describe, expect, it } from 'vitest';
import { UprootError } from '../../../packages/uproot/src/errors/index.js';
import { fromInstanceMetadata } from '@aws-sdk/credential-providers';
import {
  awsEnvironment,
  emptyAccountSeed,
  nodeEnvironment,
  NOT_ON_A_NODE,
  writeAwsEnv,
} from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor } from './helpers.js';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('awsEnvironment', () => {
  it('is enough for unmodified SDK clients constructed without any options', async () => {
    const { emulator } = await emulatorFor({ seed: emptyAccountSeed({ region: 'eu-west-1' }) });
    Object.assign(process.env, awsEnvironment(emulator));
    const vpcs = await new EC2Client({ maxAttempts: 1 }).send(new DescribeVpcsCommand({}));
    expect(vpcs.Vpcs).toHaveLength(1);
    const me = await new STSClient({ maxAttempts: 1 }).send(new GetCallerIdentityCommand({}));
    expect(me.Arn).toBe('arn:aws:iam::123456789012:user/sandbox-admin');
    expect(emulator.log.entries({ service: 'ec2' })[0]?.accessKeyId).toBe(
      emulator.adminCredentials.accessKeyId,
    );
  });

  it('lets a per-service endpoint override the global one', async () => {
    const { emulator } = await emulatorFor({ seed: emptyAccountSeed() });
    Object.assign(process.env, awsEnvironment(emulator), {
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2: emulator.url,
    });
    const out = await new ElasticLoadBalancingV2Client({ maxAttempts: 1 }).send(
      new DescribeLoadBalancersCommand({}),
    );
    expect(out.LoadBalancers).toEqual([]);
  });

  it("keeps the operator's default chain off instance metadata", async () => {
    const { emulator } = await emulatorFor({ seed: emptyAccountSeed() });
    const env = awsEnvironment(emulator);
    expect(env.AWS_EC2_METADATA_DISABLED).toBe('true');
    expect(Object.keys(env)).not.toContain('AWS_EC2_METADATA_SERVICE_ENDPOINT');
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    Object.assign(process.env, { AWS_EC2_METADATA_DISABLED: env.AWS_EC2_METADATA_DISABLED });
    const started = Date.now();
    await expect(fromInstanceMetadata({ timeout: 30_000, maxRetries: 0 })()).rejects.toThrow();
    // Refused at once, not after a wait on 169.254.169.254 (30 s here).
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('nodeEnvironment', () => {
  it("is a node's process: its own IMDS endpoint at the root, no keys, the role's credentials", async () => {
    const { emulator } = await emulatorFor({
      seed: {
        ...emptyAccountSeed(),
        roles: [{ name: 'node' }],
        instanceProfiles: [{ name: 'node', roles: ['node'] }],
        instances: [{ id: 'i-0f00000000000000a', iamInstanceProfile: 'node' }],
      },
    });
    const env = nodeEnvironment(emulator, await emulator.openInstanceImds('i-0f00000000000000a'));
    expect(env).toEqual({
      AWS_EC2_METADATA_SERVICE_ENDPOINT: expect.stringMatching(/^http:\/\/127\.1\.0\.1:\d+\/$/),
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: emulator.url,
    });
    for (const name of NOT_ON_A_NODE) delete process.env[name];
    Object.assign(process.env, env);
    expect(await new MetadataService().request('/latest/meta-data/instance-id', {})).toBe(
      'i-0f00000000000000a',
    );
    const me = await new STSClient({ maxAttempts: 1 }).send(new GetCallerIdentityCommand({}));
    expect(me.Arn).toBe('arn:aws:sts::123456789012:assumed-role/node/i-0f00000000000000a');
  });
});

describe('writeAwsEnv', () => {
  it('writes sourceable export lines, readable by the owner only', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'uproot-aws-env-'));
    const file = path.join(dir, 'aws.env');
    writeAwsEnv(file, { AWS_REGION: 'us-east-1', ODD: "it's a $value" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`export AWS_REGION=us-east-1\nexport ODD='it'\\''s a $value'\n`);
    const echoed = execFileSync('sh', ['-c', `. "${file}" && printf %s "$ODD"`], { encoding: 'utf8' });
    expect(echoed).toBe("it's a $value");
    writeAwsEnv(file, { AWS_REGION: 'us-east-1' }, ['what this is for']);
    expect(readFileSync(file, 'utf8')).toBe('# what this is for\nexport AWS_REGION=us-east-1\n');
  });

  it('rejects a name a shell cannot export, writing nothing', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'uproot-aws-env-'));
    const file = path.join(dir, 'aws.env');
    let error: unknown;
    try {
      writeAwsEnv(file, { 'BAD-NAME': 'x' });
    } catch (e) {
      error = e;
    }
    expect(UprootError.is(error) && error.code).toBe('UP-AWS-ENV-NAME');
    expect(() => statSync(file)).toThrow();
  });
});
