import http from 'node:http';
import {
  DescribeInstancesCommand,
  ModifyInstanceMetadataOptionsCommand,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { fromInstanceMetadata } from '@aws-sdk/credential-providers';
import { MetadataService } from '@aws-sdk/ec2-metadata-service';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import {
  emptyAccountSeed,
  podNetworkAddress,
  type AwsSeed,
} from '../../../packages/sandbox/src/aws/index.js';
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
    {
      id: CP,
      privateIpAddress: '10.0.1.23',
      iamInstanceProfile: 'control-plane',
      instanceType: 'm5.xlarge',
      metadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 2 },
    },
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

describe("each instance's own endpoint, and the SDK credential chain (fromInstanceMetadata)", () => {
  it('serves the instance at the root of its own loopback endpoint, which the chain needs', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    // The chain builds its own request paths: a prefix in the endpoint is dropped and nothing is found.
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = emulator.imdsEndpoint(CP);
    await failureOf(fromInstanceMetadata({ timeout: 2000 })());
    const unprefixed = emulator.log
      .entries({ service: 'imds' })
      .find((e) => e.action.startsWith('GET meta-data/iam'));
    expect(unprefixed?.instanceId).toBeUndefined();

    const endpoint = await emulator.openInstanceImds(CP);
    expect(endpoint).toMatch(/^http:\/\/127\.1\.\d+\.\d+:\d+\/$/);
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = endpoint;
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

  it('gives each instance its own address on one port, and the same endpoint on a second ask', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const a = new URL(await emulator.openInstanceImds(CP));
    const b = new URL(await emulator.openInstanceImds(WORKER));
    expect(a.hostname).not.toBe(b.hostname);
    expect(a.port).toBe(b.port);
    expect(await emulator.openInstanceImds(CP)).toBe(a.href);
    const md = new MetadataService({ endpoint: b.href });
    expect(await md.request('/latest/meta-data/instance-id', {})).toBe(WORKER);
    expect([...(await emulator.instanceImdsEndpoints()).keys()].sort()).toEqual([CP, WORKER].sort());
  });
});

describe('IMDS rules per instance: HttpTokens, hop limit, endpoint', () => {
  it('answers token-less IMDSv1 GETs when tokens are optional, 401 with the XHTML page when required', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const worker = await emulator.openInstanceImds(WORKER);
    const cp = await emulator.openInstanceImds(CP);
    const v1 = await fetch(new URL('latest/meta-data/instance-id', worker));
    expect(v1.status).toBe(200);
    expect(await v1.text()).toBe(WORKER);
    const refused = await fetch(new URL('latest/meta-data/instance-id', cp));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('text/html');
    const page = await refused.text();
    expect(page).toContain('<title>401 - Unauthorized</title>');
    expect(Buffer.byteLength(page)).toBe(343);
    // A token that is there must be valid, optional or not.
    const forged = await fetch(new URL('latest/meta-data/instance-id', worker), {
      headers: { 'x-aws-ec2-metadata-token': 'forged' },
    });
    expect(forged.status).toBe(401);
  });

  it('refuses a token PUT that carries X-Forwarded-For', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const res = await fetch(new URL('latest/api/token', await emulator.openInstanceImds(WORKER)), {
      method: 'PUT',
      headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '60', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(res.status).toBe(403);
  });

  it("loses the token's answer beyond the hop limit: pods (127.2/16) get it only with a limit of 2", async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const worker = new URL(await emulator.openInstanceImds(WORKER)); // hop limit 1
    const cp = new URL(await emulator.openInstanceImds(CP)); // hop limit 2
    const put = (endpoint: URL, localAddress?: string) =>
      new Promise<{ status: number | 'lost'; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: endpoint.hostname,
            port: endpoint.port,
            path: '/latest/api/token',
            method: 'PUT',
            headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '60' },
            agent: false,
            ...(localAddress ? { localAddress } : {}),
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('socket', (socket) =>
          socket.once(
            'connect',
            () =>
              void emulator.imdsNetwork.whenLost(socket.localAddress!, socket.localPort!).then(() => {
                resolve({ status: 'lost', body: '' });
                req.destroy();
              }),
          ),
        );
        req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
        req.end();
      });
    expect((await put(worker)).status).toBe(200);
    expect((await put(worker, podNetworkAddress(3))).status).toBe('lost');
    expect((await put(cp, podNetworkAddress(3))).status).toBe(200);
    expect(emulator.log.count({ service: 'imds', errorCode: 'lost' })).toBe(1);
    // The hop limit is for the token's answer only: an IMDSv1 GET from the pod network is answered.
    const get = await new Promise<number>((resolve, reject) =>
      http
        .get(
          {
            host: worker.hostname,
            port: worker.port,
            path: '/latest/meta-data/instance-id',
            localAddress: podNetworkAddress(3),
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
        .on('error', reject),
    );
    expect(get).toBe(200);
  });

  it('reports and changes the options through the EC2 API (DescribeInstances, ModifyInstanceMetadataOptions)', async () => {
    const { emulator, clients } = await emulatorFor({ seed: seed() });
    const describe = async (id: string) =>
      (await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]
        ?.Instances?.[0]?.MetadataOptions;
    expect(await describe(CP)).toEqual({
      State: 'applied',
      HttpTokens: 'required',
      HttpPutResponseHopLimit: 2,
      HttpEndpoint: 'enabled',
      HttpProtocolIpv6: 'disabled',
      InstanceMetadataTags: 'disabled',
    });
    expect(await describe(WORKER)).toMatchObject({ HttpTokens: 'optional', HttpPutResponseHopLimit: 1 });
    const byFilter = await clients.ec2.send(
      new DescribeInstancesCommand({
        Filters: [{ Name: 'metadata-options.http-tokens', Values: ['optional'] }],
      }),
    );
    expect(byFilter.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId)).toEqual([
      WORKER,
    ]);

    const changed = await clients.ec2.send(
      new ModifyInstanceMetadataOptionsCommand({
        InstanceId: WORKER,
        HttpTokens: 'required',
        HttpPutResponseHopLimit: 2,
      }),
    );
    expect(changed).toMatchObject({
      InstanceId: WORKER,
      InstanceMetadataOptions: {
        State: 'pending',
        HttpTokens: 'required',
        HttpPutResponseHopLimit: 2,
        HttpEndpoint: 'enabled',
      },
    });
    expect(await describe(WORKER)).toMatchObject({ State: 'applied', HttpTokens: 'required' });
    const endpoint = await emulator.openInstanceImds(WORKER);
    expect((await fetch(new URL('latest/meta-data/instance-id', endpoint))).status).toBe(401);

    await clients.ec2.send(
      new ModifyInstanceMetadataOptionsCommand({ InstanceId: WORKER, HttpEndpoint: 'disabled' }),
    );
    expect((await fetch(new URL('latest/meta-data/instance-id', endpoint))).status).toBe(403);
    const put = await fetch(new URL('latest/api/token', endpoint), {
      method: 'PUT',
      headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '60' },
    });
    expect(put.status).toBe(403);

    expect(
      await failureOf(
        clients.ec2.send(
          new ModifyInstanceMetadataOptionsCommand({ InstanceId: CP, HttpPutResponseHopLimit: 65 }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValue' });
    expect(
      await failureOf(
        clients.ec2.send(
          new ModifyInstanceMetadataOptionsCommand({
            InstanceId: 'i-0c0000000000000ff',
            HttpTokens: 'optional',
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidInstanceID.NotFound' });
  });

  it('launches with RunInstances MetadataOptions', async () => {
    const { clients } = await emulatorFor({ seed: seed() });
    const out = await clients.ec2.send(
      new RunInstancesCommand({
        ImageId: 'ami-0c7217cdde317cfec',
        MinCount: 1,
        MaxCount: 1,
        MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 3 },
      }),
    );
    expect(out.Instances?.[0]?.MetadataOptions).toMatchObject({
      HttpTokens: 'required',
      HttpPutResponseHopLimit: 3,
      HttpEndpoint: 'enabled',
    });
  });
});
