import {
  CreateTagsCommand,
  DeleteTagsCommand,
  DescribeInstancesCommand,
  DescribeInstanceTopologyCommand,
  DescribeTagsCommand,
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
  paginateDescribeInstances,
  type Instance,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import {
  emptyAccountSeed,
  EMPTY_ACCOUNT_IDS,
  type AwsSeed,
} from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor, failureOf } from './helpers.js';

const instancesOf = (out: { Reservations?: { Instances?: Instance[] }[] }): Instance[] =>
  (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);

function seedWithNodes(): AwsSeed {
  return {
    ...emptyAccountSeed({ clusterName: 'demo' }),
    instances: [
      { privateIpAddress: '10.0.1.23', tags: { Name: 'cp-1', 'kubernetes.io/cluster/demo': 'owned' } },
      { privateIpAddress: '10.0.17.9', availabilityZone: 'us-east-1b', tags: { Name: 'worker-1' } },
      {
        privateIpAddress: '10.0.33.5',
        availabilityZone: 'us-east-1c',
        state: 'stopped',
        instanceType: 'c5.xlarge',
        tags: { Name: 'worker-2', role: 'worker' },
      },
    ],
  };
}

describe('EC2 DescribeInstances through the SDK', () => {
  it('returns instances with the fields the CCM reads', async () => {
    const { clients } = await emulatorFor({ seed: seedWithNodes() });
    const [cp] = instancesOf(
      await clients.ec2.send(
        new DescribeInstancesCommand({ Filters: [{ Name: 'tag:Name', Values: ['cp-1'] }] }),
      ),
    );
    expect(cp).toMatchObject({
      PrivateDnsName: 'ip-10-0-1-23.ec2.internal',
      PrivateIpAddress: '10.0.1.23',
      State: { Code: 16, Name: 'running' },
      Placement: { AvailabilityZone: 'us-east-1a' },
      SubnetId: EMPTY_ACCOUNT_IDS.subnets[0],
      VpcId: EMPTY_ACCOUNT_IDS.vpc,
      SecurityGroups: [{ GroupId: EMPTY_ACCOUNT_IDS.securityGroup, GroupName: 'default' }],
    });
    expect(cp!.InstanceId).toMatch(/^i-0[0-9a-f]{16}$/);
    expect(cp!.LaunchTime).toBeInstanceOf(Date);
    expect(cp!.Tags).toEqual(expect.arrayContaining([{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }]));
  });

  it.each([
    [
      { Name: 'private-dns-name', Values: ['ip-10-0-1-23.ec2.internal', 'ip-10-0-17-9.ec2.internal'] },
      ['cp-1', 'worker-1'],
    ],
    [{ Name: 'private-ip-address', Values: ['10.0.33.5'] }, ['worker-2']],
    [{ Name: 'instance-state-name', Values: ['running'] }, ['cp-1', 'worker-1']],
    [{ Name: 'availability-zone', Values: ['us-east-1b', 'us-east-1c'] }, ['worker-1', 'worker-2']],
    [{ Name: 'tag-key', Values: ['role'] }, ['worker-2']],
    [{ Name: 'tag:Name', Values: ['worker-*'] }, ['worker-1', 'worker-2']],
    [{ Name: 'private-dns-name', Values: ['ip-10-0-?-23.ec2.internal'] }, ['cp-1']],
    [{ Name: 'vpc-id', Values: [EMPTY_ACCOUNT_IDS.vpc] }, ['cp-1', 'worker-1', 'worker-2']],
    [{ Name: 'instance-type', Values: ['c5.*'] }, ['worker-2']],
  ])('filter %j selects %j', async (filter, names) => {
    const { clients } = await emulatorFor({ seed: seedWithNodes() });
    const found = instancesOf(await clients.ec2.send(new DescribeInstancesCommand({ Filters: [filter] })));
    expect(found.map((i) => i.Tags?.find((t) => t.Key === 'Name')?.Value).sort()).toEqual(names);
  });

  it('ANDs several filters and filters by instance-id', async () => {
    const { emulator, clients } = await emulatorFor({ seed: seedWithNodes() });
    const ids = emulator.state.ec2.listInstances().map((i) => i.id);
    const found = instancesOf(
      await clients.ec2.send(
        new DescribeInstancesCommand({
          Filters: [
            { Name: 'instance-id', Values: ids },
            { Name: 'instance-state-name', Values: ['stopped'] },
          ],
        }),
      ),
    );
    expect(found.map((i) => i.InstanceId)).toEqual([ids[2]]);
  });

  it('pages with MaxResults and NextToken through the SDK paginator', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const launched = Array.from({ length: 23 }, () => emulator.state.runInstance({}).id);
    const pages: string[][] = [];
    for await (const page of paginateDescribeInstances({ client: clients.ec2, pageSize: 5 }, {})) {
      pages.push(instancesOf(page).map((i) => i.InstanceId!));
    }
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(pages.flat()).toEqual(launched);
  });

  it('rejects MaxResults with InstanceIds, and MaxResults out of range', async () => {
    const { emulator, clients } = await emulatorFor({ seed: seedWithNodes() });
    const id = emulator.state.ec2.listInstances()[0]!.id;
    const combo = await failureOf(
      clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id], MaxResults: 5 })),
    );
    expect(combo.name).toBe('InvalidParameterCombination');
    expect(combo.$metadata.httpStatusCode).toBe(400);
    expect((await failureOf(clients.ec2.send(new DescribeInstancesCommand({ MaxResults: 4 })))).name).toBe(
      'InvalidParameterValue',
    );
    expect((await failureOf(clients.ec2.send(new DescribeInstancesCommand({ MaxResults: 1001 })))).name).toBe(
      'InvalidParameterValue',
    );
  });

  it('answers unknown and malformed ids and unknown filters as EC2 does', async () => {
    const { clients } = await emulatorFor({ seed: seedWithNodes() });
    const missing = await failureOf(
      clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-0123456789abcdef0'] })),
    );
    expect(missing).toMatchObject({
      name: 'InvalidInstanceID.NotFound',
      message: "The instance ID 'i-0123456789abcdef0' does not exist",
    });
    expect(missing.$metadata.httpStatusCode).toBe(400);
    expect(missing.$fault).toBe('client');
    const malformed = await failureOf(
      clients.ec2.send(
        new DescribeInstancesCommand({ InstanceIds: ['i-01bc2d3e4f5a6b7c8.aws.example.com'] }),
      ),
    );
    expect(malformed).toMatchObject({
      name: 'InvalidInstanceID.Malformed',
      message: 'Invalid id: "i-01bc2d3e4f5a6b7c8.aws.example.com"',
    });
    const filter = await failureOf(
      clients.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'flavour', Values: ['x'] }] })),
    );
    expect(filter).toMatchObject({
      name: 'InvalidParameterValue',
      message: "The filter 'flavour' is invalid",
    });
  });

  it('shows in-process launches and hostname changes on the next call', async () => {
    const { emulator, clients } = await emulatorFor({ seed: seedWithNodes() });
    const added = emulator.state.runInstance({
      privateDnsName: 'i-0aaaabbbbccccdddd.us-east-1.compute.internal',
      availabilityZone: 'us-east-1c',
    });
    const [found] = instancesOf(
      await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [added.id] })),
    );
    expect(found).toMatchObject({
      PrivateDnsName: 'i-0aaaabbbbccccdddd.us-east-1.compute.internal',
      PrivateDnsNameOptions: { HostnameType: 'resource-name' },
    });
    emulator.state.ec2.setInstanceState(added.id, 'stopped');
    const [again] = instancesOf(
      await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [added.id] })),
    );
    expect(again!.State).toEqual({ Code: 80, Name: 'stopped' });
  });
});

describe('EC2 instance lifecycle', () => {
  it('runs instances in one reservation, pending at first, running afterwards', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const run = await clients.ec2.send(
      new RunInstancesCommand({
        ImageId: 'ami-0abcdef',
        MinCount: 2,
        MaxCount: 2,
        InstanceType: 't3.small',
        SubnetId: EMPTY_ACCOUNT_IDS.subnets[1],
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'new' }] }],
      }),
    );
    expect(run.ReservationId).toMatch(/^r-0/);
    expect(run.Instances?.map((i) => [i.State?.Name, i.Placement?.AvailabilityZone, i.Tags])).toEqual([
      ['pending', 'us-east-1b', [{ Key: 'Name', Value: 'new' }]],
      ['pending', 'us-east-1b', [{ Key: 'Name', Value: 'new' }]],
    ]);
    const out = await clients.ec2.send(
      new DescribeInstancesCommand({ InstanceIds: run.Instances!.map((i) => i.InstanceId!) }),
    );
    expect(instancesOf(out).map((i) => i.State?.Name)).toEqual(['running', 'running']);
    expect(out.Reservations?.map((r) => r.ReservationId)).toEqual([run.ReservationId]);
  });

  it('keeps a terminated instance visible for the retention (clock time), then forgets it', async () => {
    const clock = new VirtualClock();
    const { emulator, clients } = await emulatorFor({
      seed: emptyAccountSeed(),
      clock,
      terminatedRetentionMs: 3_600_000,
    });
    const id = emulator.state.runInstance({}).id;
    const out = await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    expect(out.TerminatingInstances).toEqual([
      {
        InstanceId: id,
        CurrentState: { Code: 32, Name: 'shutting-down' },
        PreviousState: { Code: 16, Name: 'running' },
      },
    ]);
    await clock.advanceBy(3_599_000);
    const [still] = instancesOf(await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] })));
    expect(still!.State?.Name).toBe('terminated');
    await clock.advanceBy(1_000);
    expect(
      (await failureOf(clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] })))).name,
    ).toBe('InvalidInstanceID.NotFound');
    expect(instancesOf(await clients.ec2.send(new DescribeInstancesCommand({})))).toEqual([]);
  });

  it('stops and starts instances, refusing to start a terminated one', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const id = emulator.state.runInstance({}).id;
    const stop = await clients.ec2.send(new StopInstancesCommand({ InstanceIds: [id] }));
    expect(stop.StoppingInstances?.[0]?.CurrentState?.Name).toBe('stopping');
    expect(emulator.state.ec2.instance(id)?.state).toBe('stopped');
    const start = await clients.ec2.send(new StartInstancesCommand({ InstanceIds: [id] }));
    expect(start.StartingInstances?.[0]?.CurrentState?.Name).toBe('pending');
    emulator.state.terminateInstance(id);
    expect((await failureOf(clients.ec2.send(new StartInstancesCommand({ InstanceIds: [id] })))).name).toBe(
      'IncorrectInstanceState',
    );
  });

  it('reports topology only for instance types that have it', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const gpu = emulator.state.runInstance({ instanceType: 'p4d.24xlarge' }).id;
    emulator.state.runInstance({ instanceType: 'm5.large' });
    const out = await clients.ec2.send(new DescribeInstanceTopologyCommand({}));
    expect(out.Instances?.map((i) => i.InstanceId)).toEqual([gpu]);
    expect(out.Instances?.[0]?.NetworkNodes).toHaveLength(3);
  });
});

describe('EC2 tags', () => {
  it('makes tag changes visible to later reads, through DescribeInstances and DescribeTags', async () => {
    const { emulator, clients } = await emulatorFor({ seed: seedWithNodes() });
    const id = emulator.state.ec2.listInstances()[1]!.id;
    await clients.ec2.send(
      new CreateTagsCommand({
        Resources: [id],
        Tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }],
      }),
    );
    const tagged = instancesOf(
      await clients.ec2.send(
        new DescribeInstancesCommand({
          Filters: [{ Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned'] }],
        }),
      ),
    );
    expect(tagged.map((i) => i.InstanceId)).toContain(id);
    await clients.ec2.send(
      new DeleteTagsCommand({ Resources: [id], Tags: [{ Key: 'kubernetes.io/cluster/demo' }] }),
    );
    const tags = await clients.ec2.send(
      new DescribeTagsCommand({ Filters: [{ Name: 'resource-id', Values: [id] }] }),
    );
    expect(tags.Tags).toEqual([{ Key: 'Name', ResourceId: id, ResourceType: 'instance', Value: 'worker-1' }]);
    expect(emulator.state.ec2.tagRecord(id)).toEqual({ Name: 'worker-1' });
  });

  it('filters DescribeTags by resource type, key and value, and pages', async () => {
    const { clients } = await emulatorFor({ seed: seedWithNodes() });
    const subnetTags = await clients.ec2.send(
      new DescribeTagsCommand({
        Filters: [
          { Name: 'resource-type', Values: ['subnet'] },
          { Name: 'key', Values: ['kubernetes.io/role/elb'] },
        ],
      }),
    );
    expect(subnetTags.Tags?.map((t) => t.ResourceId).sort()).toEqual([...EMPTY_ACCOUNT_IDS.subnets].sort());
    const byValue = await clients.ec2.send(
      new DescribeTagsCommand({ Filters: [{ Name: 'value', Values: ['worker-*'] }] }),
    );
    expect(byValue.Tags?.map((t) => t.Value).sort()).toEqual(['worker-1', 'worker-2']);
    const first = await clients.ec2.send(new DescribeTagsCommand({ MaxResults: 5 }));
    expect(first.Tags).toHaveLength(5);
    const second = await clients.ec2.send(
      new DescribeTagsCommand({ MaxResults: 5, NextToken: first.NextToken }),
    );
    expect(second.Tags?.[0]).not.toEqual(first.Tags?.[0]);
  });

  it('fails CreateTags on an unknown resource', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const error = await failureOf(
      clients.ec2.send(
        new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'a', Value: 'b' }] }),
      ),
    );
    expect(error.name).toBe('InvalidInstanceID.NotFound');
  });
});
