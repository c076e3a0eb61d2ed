/**
 * The managers' view of instance metadata: aws-sdk-go's ec2metadata as the CCM uses it, over real HTTP from
 * the host network or the pod network, on a virtual clock (the SDK's 1 s timeouts pass only when the test
 * moves time). With a hop limit of 1 the token's answer is lost for pods: tokens optional fall back to
 * IMDSv1, tokens required end in the CCM's own start-up error.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { Ec2MetadataClient } from '../../../packages/sandbox/src/cloud-controllers/ec2-metadata.js';
import { initAwsCloud } from '../../../packages/sandbox/src/managers/aws-cloud-init.js';
import { imdsCredentials } from '../../../packages/sandbox/src/managers/imds-credentials.js';
import {
  emptyAccountSeed,
  imdsErrorPage,
  podNetworkAddress,
  type AwsSeed,
} from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor } from '../aws/helpers.js';

const ID = 'i-0d0000000000000a1';

const seed = (httpTokens: 'optional' | 'required', hopLimit: number): AwsSeed => ({
  ...emptyAccountSeed({ region: 'eu-west-1' }),
  roles: [{ name: 'cp' }],
  instanceProfiles: [{ name: 'cp', roles: ['cp'] }],
  instances: [
    { id: ID, iamInstanceProfile: 'cp', metadataOptions: { httpTokens, httpPutResponseHopLimit: hopLimit } },
  ],
});

async function setup(httpTokens: 'optional' | 'required', hopLimit: number, pod: boolean) {
  const clock = new VirtualClock();
  const { emulator } = await emulatorFor({ seed: seed(httpTokens, hopLimit), clock });
  const endpoint = await emulator.openInstanceImds(ID);
  const client = () =>
    new Ec2MetadataClient({
      endpoint,
      clock,
      network: emulator.imdsNetwork,
      ...(pod ? { localAddress: podNetworkAddress(0) } : {}),
    });
  const actions = () =>
    emulator.log.entries({ service: 'imds' }).map((e) => `${e.action} ${e.errorCode ?? e.status}`);
  return { clock, emulator, client, actions };
}

/** Runs work while moving virtual time until it settles. */
async function driven<T>(clock: VirtualClock, work: Promise<T>): Promise<T> {
  let done = false;
  const tracked = work.finally(() => (done = true));
  while (!done) await clock.advanceBy(100);
  return tracked;
}

describe('aws-sdk-go ec2metadata over the twin network', () => {
  it('host network: one token for every read, no wait', async () => {
    const { clock, client, actions } = await setup('required', 1, false);
    const md = client();
    const started = clock.now();
    expect(await driven(clock, md.region())).toBe('eu-west-1');
    expect(await driven(clock, md.getMetadata('instance-id'))).toBe(ID);
    expect(clock.now() - started).toBeLessThan(1000);
    expect(actions()).toEqual([
      'PUT api/token 200',
      'GET dynamic/instance-identity/document 200',
      'GET meta-data/instance-id 200',
    ]);
  });

  it('pod network, hop limit 1, tokens optional: three lost token answers, then IMDSv1 for good', async () => {
    const { clock, client, actions } = await setup('optional', 1, true);
    const md = client();
    const started = clock.now();
    expect(await driven(clock, md.region())).toBe('eu-west-1');
    // Three attempts of 1 s (the SDK's client timeout) with 30 and 60 ms between them.
    expect(clock.now() - started).toBeGreaterThanOrEqual(3090);
    expect(await driven(clock, md.getMetadata('instance-id'))).toBe(ID);
    expect(actions()).toEqual([
      'PUT api/token lost',
      'PUT api/token lost',
      'PUT api/token lost',
      'GET dynamic/instance-identity/document 200',
      'GET meta-data/instance-id 200',
    ]);
  });

  it('pod network, hop limit 2: the token arrives', async () => {
    const { clock, client, actions } = await setup('required', 2, true);
    expect(await driven(clock, client().getMetadata('instance-id'))).toBe(ID);
    expect(actions()).toEqual(['PUT api/token 200', 'GET meta-data/instance-id 200']);
  });

  it("pod network, hop limit 1, tokens required: the CCM's start-up fails with aws-sdk-go's error text", async () => {
    const { clock, client } = await setup('required', 1, true);
    const lines: string[] = [];
    const init = await driven(
      clock,
      initAwsCloud(client, (l) => lines.push(l)),
    );
    expect(lines).toEqual(['Loading region from metadata service']);
    expect(init).toEqual({
      ok: false,
      reason:
        'Cloud provider could not be initialized: could not init cloud provider "aws": ' +
        'EC2MetadataRequestError: failed to get EC2 instance identity document\n' +
        `caused by: EC2MetadataError: failed to make EC2Metadata request\n${imdsErrorPage(401, 'Unauthorized')}\n` +
        '\tstatus code: 401, request id: ',
    });
    const credentials = imdsCredentials(client, () => clock.now());
    const failure = await driven(
      clock,
      credentials().then(
        () => undefined,
        (e: unknown) => e as { text: string },
      ),
    );
    expect(failure?.text).toMatch(
      /^NoCredentialProviders: no valid providers in chain\ncaused by: EC2RoleRequestError: no EC2 instance role found\ncaused by: EC2MetadataError: failed to make EC2Metadata request\n/,
    );
  });

  it('host network: the CCM learns region and instance id, and the role credentials follow', async () => {
    const { clock, client, emulator } = await setup('required', 1, false);
    const init = await driven(
      clock,
      initAwsCloud(client, () => undefined),
    );
    expect(init).toEqual({ ok: true, region: 'eu-west-1', instanceId: ID });
    const creds = await driven(clock, imdsCredentials(client, () => clock.now())());
    expect(creds.accessKeyId).toMatch(/^ASIA/);
    expect(emulator.log.count({ service: 'imds', errorCode: 'lost' })).toBe(0);
  });
});
