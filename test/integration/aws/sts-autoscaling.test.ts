import {
  DescribeAutoScalingGroupsCommand,
  DescribeTagsCommand,
  paginateDescribeAutoScalingGroups,
} from '@aws-sdk/client-auto-scaling';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, type AwsSeed } from '../../../packages/sandbox/src/aws/index.js';
import { clientsFor, emulatorFor } from './helpers.js';

describe('STS GetCallerIdentity', () => {
  it('names the admin behind the sandbox key', async () => {
    const { clients } = await emulatorFor({ seed: { accountId: '210987654321' } });
    const me = await clients.sts.send(new GetCallerIdentityCommand({}));
    expect(me).toMatchObject({
      Account: '210987654321',
      Arn: 'arn:aws:iam::210987654321:user/sandbox-admin',
    });
    expect(me.UserId).toMatch(/^AIDA/);
  });

  it('names the assumed role for role and instance credentials', async () => {
    const { emulator } = await emulatorFor({
      seed: {
        ...emptyAccountSeed(),
        roles: [{ name: 'node' }, { name: 'ccm' }],
        instanceProfiles: [{ name: 'node', roles: ['node'] }],
        instances: [{ id: 'i-0123456789abcdef0', iamInstanceProfile: 'node' }],
      },
    });
    const asInstance = clientsFor(
      emulator,
      emulator.credentialsFor({ type: 'instance', instanceId: 'i-0123456789abcdef0' }),
    );
    const who = await asInstance.sts.send(new GetCallerIdentityCommand({}));
    expect(who.Arn).toBe('arn:aws:sts::123456789012:assumed-role/node/i-0123456789abcdef0');
    expect(who.UserId).toMatch(/^AROA[A-Z2-7]+:i-0123456789abcdef0$/);
    const asRole = clientsFor(
      emulator,
      emulator.credentialsFor({ type: 'role', roleName: 'ccm', sessionName: 'rehearsal' }),
    );
    expect((await asRole.sts.send(new GetCallerIdentityCommand({}))).Arn).toBe(
      'arn:aws:sts::123456789012:assumed-role/ccm/rehearsal',
    );
  });

  it('maps static seed keys to their principal', async () => {
    const { emulator } = await emulatorFor({
      seed: {
        roles: [{ name: 'ci' }],
        accessKeys: [
          {
            accessKeyId: 'AKIACIKEY00000000001',
            secretAccessKey: 's',
            principal: { type: 'role', roleName: 'ci' },
          },
        ],
      },
    });
    const clients = clientsFor(emulator, { accessKeyId: 'AKIACIKEY00000000001', secretAccessKey: 's' });
    expect((await clients.sts.send(new GetCallerIdentityCommand({}))).Arn).toBe(
      'arn:aws:sts::123456789012:assumed-role/ci/sandbox-session',
    );
  });
});

describe('Auto Scaling', () => {
  const seed = (): AwsSeed => ({
    ...emptyAccountSeed(),
    instances: [{ id: 'i-0000000000000000a' }, { id: 'i-0000000000000000b', availabilityZone: 'us-east-1b' }],
    autoScalingGroups: [
      {
        name: 'workers',
        minSize: 1,
        maxSize: 5,
        instanceIds: ['i-0000000000000000a', 'i-0000000000000000b'],
        launchTemplate: { name: 'workers-lt' },
        tags: [
          { key: 'kubernetes.io/cluster/demo', value: 'owned' },
          { key: 'Name', value: 'worker', propagateAtLaunch: true },
        ],
      },
      ...Array.from({ length: 4 }, (_, i) => ({
        name: `spare-${i}`,
        tags: [{ key: 'pool', value: `p${i}` }],
      })),
    ],
  });

  it('describes groups with their instances and tags, and filters by tag', async () => {
    const { emulator, clients } = await emulatorFor({ seed: seed() });
    emulator.state.ec2.setInstanceState('i-0000000000000000b', 'stopped');
    const out = await clients.autoscaling.send(
      new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['workers'] }),
    );
    const group = out.AutoScalingGroups![0]!;
    expect(group).toMatchObject({
      AutoScalingGroupName: 'workers',
      MinSize: 1,
      MaxSize: 5,
      DesiredCapacity: 2,
      AvailabilityZones: ['us-east-1a', 'us-east-1b'],
    });
    expect(group.Instances?.map((i) => [i.InstanceId, i.LifecycleState, i.HealthStatus])).toEqual([
      ['i-0000000000000000a', 'InService', 'Healthy'],
      ['i-0000000000000000b', 'Standby', 'Unhealthy'],
    ]);
    const byTag = await clients.autoscaling.send(
      new DescribeAutoScalingGroupsCommand({
        Filters: [{ Name: 'tag-key', Values: ['kubernetes.io/cluster/demo'] }],
      }),
    );
    expect(byTag.AutoScalingGroups?.map((g) => g.AutoScalingGroupName)).toEqual(['workers']);
  });

  it('pages groups and tags with NextToken and MaxRecords', async () => {
    const { clients } = await emulatorFor({ seed: seed() });
    const names: string[] = [];
    for await (const page of paginateDescribeAutoScalingGroups(
      { client: clients.autoscaling, pageSize: 2 },
      {},
    )) {
      names.push(...(page.AutoScalingGroups ?? []).map((g) => g.AutoScalingGroupName!));
    }
    expect(names).toEqual(['workers', 'spare-0', 'spare-1', 'spare-2', 'spare-3']);
    const first = await clients.autoscaling.send(new DescribeTagsCommand({ MaxRecords: 4 }));
    expect(first.Tags).toHaveLength(4);
    const rest = await clients.autoscaling.send(
      new DescribeTagsCommand({ MaxRecords: 4, NextToken: first.NextToken }),
    );
    expect(rest.Tags?.map((t) => t.Value)).toEqual(['p2', 'p3']);
    expect(rest.NextToken).toBeUndefined();
    const filtered = await clients.autoscaling.send(
      new DescribeTagsCommand({ Filters: [{ Name: 'auto-scaling-group', Values: ['workers'] }] }),
    );
    expect(filtered.Tags?.map((t) => [t.Key, t.PropagateAtLaunch])).toEqual([
      ['kubernetes.io/cluster/demo', true],
      ['Name', true],
    ]);
  });
});
