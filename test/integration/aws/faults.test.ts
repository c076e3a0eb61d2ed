import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetRoleCommand } from '@aws-sdk/client-iam';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../packages/uproot/src/clock/index.js';
import { emptyAccountSeed } from '../../../packages/sandbox/src/aws/index.js';
import { clientsFor, emulatorFor, failureOf } from './helpers.js';

describe('fault injection', () => {
  it('throttles EC2 with RequestLimitExceeded (503), which the SDK’s default retry absorbs', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    emulator.faults.throttle({ service: 'ec2', action: 'DescribeInstances', times: 1 });
    const throttled = await failureOf(clients.ec2.send(new DescribeInstancesCommand({})));
    expect(throttled.name).toBe('RequestLimitExceeded');
    expect(throttled.$metadata.httpStatusCode).toBe(503);

    emulator.faults.throttle({ service: 'ec2', action: 'DescribeInstances', times: 1 });
    // The default retry strategy, with just enough attempts for one retry to keep the test short.
    const retrying = new EC2Client({
      region: emulator.region,
      endpoint: emulator.url,
      credentials: emulator.adminCredentials,
      maxAttempts: 2,
    });
    const out = await retrying.send(new DescribeInstancesCommand({}));
    expect(out.$metadata.attempts).toBe(2);
    expect(emulator.log.count({ action: 'DescribeInstances', errorCode: 'RequestLimitExceeded' })).toBe(2);
    expect(emulator.log.count({ action: 'DescribeInstances' })).toBe(3);
  });

  it('throttles the query services with Throttling', async () => {
    const { emulator, clients } = await emulatorFor({ seed: { roles: [{ name: 'node' }] } });
    emulator.faults.throttle({ service: 'iam' });
    const error = await failureOf(clients.iam.send(new GetRoleCommand({ RoleName: 'node' })));
    expect(error.name).toBe('Throttling');
    expect(error.$metadata.httpStatusCode).toBe(400);
  });

  it('fails chosen calls with any code and status, for a given number of calls', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    emulator.faults.fail({
      action: 'DescribeInstances',
      code: 'InternalError',
      status: 500,
      message: 'boom',
      times: 1,
    });
    const error = await failureOf(clients.ec2.send(new DescribeInstancesCommand({})));
    expect(error).toMatchObject({ name: 'InternalError', message: 'boom' });
    expect(error.$metadata.httpStatusCode).toBe(500);
    expect(error.$fault).toBe('server');
    await clients.ec2.send(new DescribeInstancesCommand({}));
  });

  it('targets one caller only', async () => {
    const { emulator } = await emulatorFor({ seed: { ...emptyAccountSeed(), roles: [{ name: 'ccm' }] } });
    const ccm = clientsFor(emulator, emulator.credentialsFor({ type: 'role', roleName: 'ccm' }));
    emulator.faults.throttle({ caller: 'arn:aws:sts::123456789012:assumed-role/ccm/sandbox-session' });
    expect((await failureOf(ccm.ec2.send(new DescribeInstancesCommand({})))).name).toBe(
      'RequestLimitExceeded',
    );
    await clientsFor(emulator).ec2.send(new DescribeInstancesCommand({}));
  });

  it('throttles the same calls for the same seed', async () => {
    const outcomes = async (): Promise<boolean[]> => {
      const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed(), random: seededRandom(42) });
      emulator.faults.throttle({ probability: 0.5 });
      const results: boolean[] = [];
      for (let i = 0; i < 12; i++) {
        results.push(
          await clients.ec2.send(new DescribeInstancesCommand({})).then(
            () => true,
            () => false,
          ),
        );
      }
      return results;
    };
    const first = await outcomes();
    expect(await outcomes()).toEqual(first);
    expect(first).toContain(true);
    expect(first).toContain(false);
  });

  it('delays calls by clock time and records the fault', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    emulator.faults.delay({ action: 'DescribeInstances', ms: 5, times: 1 });
    await clients.ec2.send(new DescribeInstancesCommand({}));
    expect(emulator.log.entries({ action: 'DescribeInstances' })[0]?.fault).toBe('latency');
  });
});
