import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { fromInstanceMetadata } from '@aws-sdk/credential-providers';
import { MetadataService } from '@aws-sdk/ec2-metadata-service';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/clock/index.js';
import { emptyAccountSeed, type AwsSeed } from '../../../src/sandbox/aws/index.js';
import { clientsFor, emulatorFor, failureOf } from './helpers.js';

const CP = 'i-0c0000000000000a1';
const WORKER = 'i-0c0000000000000b2';

const seed = (): AwsSeed => ({
  ...emptyAccountSeed(),
  roles: [{ name: 'control-plane' }, { name: 'worker' }],
  instanceProfiles: [
    { name: 'control-plane', roles: ['control-plane'] },
    { name: 'worker', roles: ['worker'] },
  ],
  instances: [
    { id: CP, privateIpAddress: '10.0.1.23', iamInstanceProfile: 'control-plane', instanceType: 'm5.xlarge' },
    {
      id: WORKER,
      privateIpAddress: '10.0.17.9',
      availabilityZone: 'us-east-1b',
      iamInstanceProfile: 'worker',
      // A custom DHCP option set: the OS sees this domain, EC2 still reports ec2.internal.
      hostname: 'ip-10-0-17-9.corp.example.com',
      localHostname: 'ip-10-0-17-9.corp.example.com',
    },
  ],
});

const previousEndpoint = process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
afterEach(() => {
  if (previousEndpoint === undefined) delete process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
  else process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = previousEndpoint;
});

async function token(base: string, ttl = '21600'): Promise<string> {
  const res = await fetch(new URL('latest/api/token', base), {
    method: 'PUT',
    headers: { 'x-aws-ec2-metadata-token-ttl-seconds': ttl },
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe('IMDSv2 through @aws-sdk/ec2-metadata-service', () => {
  it('serves each instance its own metadata on one shared port', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const cp = new MetadataService({ endpoint: emulator.imdsEndpoint(CP) });
    const worker = new MetadataService({ endpoint: emulator.imdsEndpoint(WORKER) });
    expect(await cp.request('/latest/meta-data/instance-id', {})).toBe(CP);
    expect(await worker.request('/latest/meta-data/instance-id', {})).toBe(WORKER);
    expect(await cp.request('/latest/meta-data/local-hostname', {})).toBe('ip-10-0-1-23.ec2.internal');
    expect(await cp.request('/latest/meta-data/hostname', {})).toBe('ip-10-0-1-23.ec2.internal');
    expect(await cp.request('/latest/meta-data/local-ipv4', {})).toBe('10.0.1.23');
    expect(await cp.request('/latest/meta-data/instance-type', {})).toBe('m5.xlarge');
    expect(await worker.request('/latest/meta-data/placement/availability-zone', {})).toBe('us-east-1b');
    expect(await worker.request('/latest/meta-data/placement/region', {})).toBe('us-east-1');
    expect(await worker.request('/latest/meta-data/local-hostname', {})).toBe(
      'ip-10-0-17-9.corp.example.com',
    );
    const mac = await worker.request('/latest/meta-data/mac', {});
    expect(await worker.request(`/latest/meta-data/network/interfaces/macs/${mac}/subnet-id`, {})).toBe(
      emulator.state.ec2.instance(WORKER)!.subnetId,
    );
    const identity = JSON.parse(await cp.request('/latest/dynamic/instance-identity/document', {})) as Record<
      string,
      unknown
    >;
    expect(identity).toMatchObject({
      instanceId: CP,
      region: 'us-east-1',
      accountId: '123456789012',
      privateIp: '10.0.1.23',
    });
    expect(emulator.log.count({ service: 'imds' })).toBeGreaterThanOrEqual(11);
  });

  it('keeps the EC2 private DNS name even when the OS hostname uses a custom domain', async () => {
    const { clients } = await emulatorFor({ seed: seed() });
    const out = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [WORKER] }));
    expect(out.Reservations?.[0]?.Instances?.[0]?.PrivateDnsName).toBe('ip-10-0-17-9.ec2.internal');
  });

  it('hands out role credentials that sign as the instance’s role', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const md = new MetadataService({ endpoint: emulator.imdsEndpoint(WORKER) });
    expect(await md.request('/latest/meta-data/iam/security-credentials/', {})).toBe('worker');
    const info = JSON.parse(await md.request('/latest/meta-data/iam/info', {})) as Record<string, string>;
    expect(info).toMatchObject({
      Code: 'Success',
      InstanceProfileArn: 'arn:aws:iam::123456789012:instance-profile/worker',
    });
    const creds = JSON.parse(
      await md.request('/latest/meta-data/iam/security-credentials/worker', {}),
    ) as Record<string, string>;
    expect(Object.keys(creds).sort()).toEqual([
      'AccessKeyId',
      'Code',
      'Expiration',
      'LastUpdated',
      'SecretAccessKey',
      'Token',
      'Type',
    ]);
    expect(creds).toMatchObject({ Code: 'Success', Type: 'AWS-HMAC' });
    const sts = clientsFor(emulator, {
      accessKeyId: creds.AccessKeyId!,
      secretAccessKey: creds.SecretAccessKey!,
      sessionToken: creds.Token,
    }).sts;
    expect((await sts.send(new GetCallerIdentityCommand({}))).Arn).toBe(
      `arn:aws:sts::123456789012:assumed-role/worker/${WORKER}`,
    );
  });

  it('answers 401 without a valid token, 404 for unknown paths, and lists directories', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const base = emulator.imdsEndpoint(CP);
    expect((await fetch(new URL('latest/meta-data/instance-id', base))).status).toBe(401);
    expect(
      (
        await fetch(new URL('latest/meta-data/instance-id', base), {
          headers: { 'x-aws-ec2-metadata-token': 'forged' },
        })
      ).status,
    ).toBe(401);
    const own = await token(base);
    const other = await token(emulator.imdsEndpoint(WORKER));
    // A token belongs to the instance it was asked for.
    expect(
      (
        await fetch(new URL('latest/meta-data/instance-id', base), {
          headers: { 'x-aws-ec2-metadata-token': other },
        })
      ).status,
    ).toBe(401);
    const headers = { 'x-aws-ec2-metadata-token': own };
    expect((await fetch(new URL('latest/meta-data/no-such-thing', base), { headers })).status).toBe(404);
    const listing = await (await fetch(new URL('latest/meta-data/', base), { headers })).text();
    expect(listing.split('\n')).toEqual(
      expect.arrayContaining([
        'hostname',
        'instance-id',
        'local-hostname',
        'local-ipv4',
        'iam/',
        'placement/',
      ]),
    );
    // Clients that join endpoint and path produce `//latest/...`.
    const doubled = await fetch(`${base}/latest/meta-data/instance-id`, { headers });
    expect(await doubled.text()).toBe(CP);
    const missingTtl = await fetch(new URL('latest/api/token', base), { method: 'PUT' });
    expect(missingTtl.status).toBe(400);
  });

  it('expires tokens by the emulator’s clock', async () => {
    const clock = new VirtualClock();
    const { emulator } = await emulatorFor({ seed: seed(), clock });
    const base = emulator.imdsEndpoint(CP);
    const short = await token(base, '60');
    const read = () =>
      fetch(new URL('latest/meta-data/instance-id', base), {
        headers: { 'x-aws-ec2-metadata-token': short },
      });
    expect((await read()).status).toBe(200);
    await clock.advanceBy(59_999);
    expect((await read()).status).toBe(200);
    await clock.advanceBy(1);
    expect((await read()).status).toBe(401);
  });
});

describe('IMDS through the SDK credential chain (fromInstanceMetadata)', () => {
  it('drops the endpoint path, so a dedicated per-instance port is needed', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = emulator.imdsEndpoint(CP);
    await failureOf(fromInstanceMetadata({ timeout: 2000 })());
    const unprefixed = emulator.log
      .entries({ service: 'imds' })
      .find((e) => e.action.startsWith('GET meta-data/iam'));
    expect(unprefixed?.instanceId).toBeUndefined();

    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = await emulator.openInstanceImds(CP);
    const credentials = await fromInstanceMetadata({ timeout: 2000 })();
    expect(credentials.accessKeyId).toMatch(/^ASIA/);
    expect(credentials.expiration).toBeInstanceOf(Date);
    const sts = clientsFor(emulator, {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      sessionToken: credentials.sessionToken,
    }).sts;
    expect((await sts.send(new GetCallerIdentityCommand({}))).Arn).toBe(
      `arn:aws:sts::123456789012:assumed-role/control-plane/${CP}`,
    );
  });

  it('gives each instance its own port and the same port on a second ask', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const a = await emulator.openInstanceImds(CP);
    const b = await emulator.openInstanceImds(WORKER);
    expect(a).not.toBe(b);
    expect(await emulator.openInstanceImds(CP)).toBe(a);
    const md = new MetadataService({ endpoint: b });
    expect(await md.request('/latest/meta-data/instance-id', {})).toBe(WORKER);
  });
});
