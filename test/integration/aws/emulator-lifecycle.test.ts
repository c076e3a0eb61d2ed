import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { UprootError } from '../../../packages/uproot/src/errors/index.js';
import { emptyAccountSeed, startAwsEmulator } from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor } from './helpers.js';

async function rejection(promise: Promise<unknown>): Promise<UprootError> {
  try {
    await promise;
  } catch (error) {
    if (UprootError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('startAwsEmulator', () => {
  it('listens on loopback only', async () => {
    const error = await rejection(startAwsEmulator({ host: '0.0.0.0' }));
    expect(error.code).toBe('UP-AWS-EMULATOR-HOST');
  });

  it('rejects a bad seed before listening, naming the file and field', async () => {
    const error = await rejection(
      startAwsEmulator({ seed: { region: 'moon-1' } as never, seedFile: 'aws.yaml' }),
    );
    expect(error.location).toMatchObject({ file: 'aws.yaml', field: 'region', value: 'moon-1' });
  });

  it('reports its endpoint, account and region, and counts calls until reset', async () => {
    const { emulator, clients } = await emulatorFor({
      seed: emptyAccountSeed({ accountId: '000011112222', region: 'us-west-2' }),
    });
    expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
    expect([emulator.accountId, emulator.region]).toEqual(['000011112222', 'us-west-2']);
    await clients.ec2.send(new DescribeInstancesCommand({}));
    await clients.ec2.send(new DescribeInstancesCommand({}));
    expect(emulator.log.count({ service: 'ec2', action: 'DescribeInstances' })).toBe(2);
    expect(emulator.log.entries()[0]).toMatchObject({
      caller: 'arn:aws:iam::000011112222:user/sandbox-admin',
      status: 200,
    });
    emulator.log.reset();
    expect(emulator.log.counters()).toEqual({});
  });

  it('stops answering after close', async () => {
    const emulator = await startAwsEmulator();
    await emulator.openInstanceImds('i-0123456789abcdef0');
    await emulator.close();
    await expect(fetch(`${emulator.url}/`)).rejects.toThrow();
  });
});
