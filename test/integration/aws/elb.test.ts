import {
  AddTagsCommand,
  ConfigureHealthCheckCommand,
  CreateLoadBalancerCommand,
  CreateLoadBalancerListenersCommand,
  DeleteLoadBalancerCommand,
  DeleteLoadBalancerListenersCommand,
  DeregisterInstancesFromLoadBalancerCommand,
  DescribeInstanceHealthCommand,
  DescribeLoadBalancerAttributesCommand,
  DescribeLoadBalancersCommand,
  DescribeTagsCommand,
  ModifyLoadBalancerAttributesCommand,
  RegisterInstancesWithLoadBalancerCommand,
  RemoveTagsCommand,
} from '@aws-sdk/client-elastic-load-balancing';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, EMPTY_ACCOUNT_IDS } from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor, failureOf } from './helpers.js';

describe('Elastic Load Balancing (classic, 2012-06-01)', () => {
  it('creates, describes, registers, health-checks and deletes a load balancer', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const nodes = [
      emulator.state.runInstance({}).id,
      emulator.state.runInstance({ availabilityZone: 'us-east-1b' }).id,
    ];
    const created = await clients.elb.send(
      new CreateLoadBalancerCommand({
        LoadBalancerName: 'a1b2c3',
        Listeners: [{ Protocol: 'TCP', LoadBalancerPort: 80, InstanceProtocol: 'TCP', InstancePort: 30080 }],
        Subnets: [...EMPTY_ACCOUNT_IDS.subnets],
        SecurityGroups: [EMPTY_ACCOUNT_IDS.securityGroup],
        Tags: [{ Key: 'kubernetes.io/service-name', Value: 'default/web' }],
      }),
    );
    expect(created.DNSName).toMatch(/^a1b2c3-\d{10}\.us-east-1\.elb\.amazonaws\.com$/);
    const registered = await clients.elb.send(
      new RegisterInstancesWithLoadBalancerCommand({
        LoadBalancerName: 'a1b2c3',
        Instances: nodes.map((InstanceId) => ({ InstanceId })),
      }),
    );
    expect(registered.Instances?.map((i) => i.InstanceId)).toEqual(nodes);
    await clients.elb.send(
      new ConfigureHealthCheckCommand({
        LoadBalancerName: 'a1b2c3',
        HealthCheck: {
          Target: 'TCP:30080',
          Interval: 10,
          Timeout: 5,
          UnhealthyThreshold: 6,
          HealthyThreshold: 2,
        },
      }),
    );
    await clients.elb.send(
      new CreateLoadBalancerListenersCommand({
        LoadBalancerName: 'a1b2c3',
        Listeners: [{ Protocol: 'TCP', LoadBalancerPort: 443, InstancePort: 30443 }],
      }),
    );
    const [lb] = (await clients.elb.send(new DescribeLoadBalancersCommand({ LoadBalancerNames: ['a1b2c3'] })))
      .LoadBalancerDescriptions!;
    expect(lb).toMatchObject({
      LoadBalancerName: 'a1b2c3',
      DNSName: created.DNSName,
      Scheme: 'internet-facing',
      VPCId: EMPTY_ACCOUNT_IDS.vpc,
      Subnets: [...EMPTY_ACCOUNT_IDS.subnets],
      AvailabilityZones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
      SecurityGroups: [EMPTY_ACCOUNT_IDS.securityGroup],
      HealthCheck: {
        Target: 'TCP:30080',
        Interval: 10,
        Timeout: 5,
        UnhealthyThreshold: 6,
        HealthyThreshold: 2,
      },
      Instances: nodes.map((InstanceId) => ({ InstanceId })),
    });
    expect(lb!.ListenerDescriptions?.map((l) => l.Listener?.LoadBalancerPort)).toEqual([80, 443]);
    expect(lb!.CreatedTime).toBeInstanceOf(Date);

    emulator.state.ec2.setInstanceState(nodes[1]!, 'stopped');
    const health = await clients.elb.send(new DescribeInstanceHealthCommand({ LoadBalancerName: 'a1b2c3' }));
    expect(health.InstanceStates?.map((s) => s.State)).toEqual(['InService', 'OutOfService']);

    await clients.elb.send(
      new DeleteLoadBalancerListenersCommand({ LoadBalancerName: 'a1b2c3', LoadBalancerPorts: [443] }),
    );
    const remaining = await clients.elb.send(
      new DeregisterInstancesFromLoadBalancerCommand({
        LoadBalancerName: 'a1b2c3',
        Instances: [{ InstanceId: nodes[1] }],
      }),
    );
    expect(remaining.Instances).toEqual([{ InstanceId: nodes[0] }]);
    await clients.elb.send(new DeleteLoadBalancerCommand({ LoadBalancerName: 'a1b2c3' }));
    const gone = await failureOf(
      clients.elb.send(new DescribeLoadBalancersCommand({ LoadBalancerNames: ['a1b2c3'] })),
    );
    expect(gone.name).toBe('AccessPointNotFoundException');
    expect((gone as unknown as { Code: string }).Code).toBe('LoadBalancerNotFound');
    expect(gone.$metadata.httpStatusCode).toBe(400);
    // Deleting again is not an error on AWS.
    await clients.elb.send(new DeleteLoadBalancerCommand({ LoadBalancerName: 'a1b2c3' }));
  });

  it('modifies attributes and tags', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    await clients.elb.send(
      new CreateLoadBalancerCommand({
        LoadBalancerName: 'lb',
        Listeners: [],
        Subnets: [EMPTY_ACCOUNT_IDS.subnets[0]],
      }),
    );
    await clients.elb.send(
      new ModifyLoadBalancerAttributesCommand({
        LoadBalancerName: 'lb',
        LoadBalancerAttributes: {
          CrossZoneLoadBalancing: { Enabled: true },
          ConnectionDraining: { Enabled: true, Timeout: 300 },
        },
      }),
    );
    const attrs = await clients.elb.send(
      new DescribeLoadBalancerAttributesCommand({ LoadBalancerName: 'lb' }),
    );
    expect(attrs.LoadBalancerAttributes).toMatchObject({
      CrossZoneLoadBalancing: { Enabled: true },
      ConnectionDraining: { Enabled: true, Timeout: 300 },
      ConnectionSettings: { IdleTimeout: 60 },
    });
    await clients.elb.send(
      new AddTagsCommand({
        LoadBalancerNames: ['lb'],
        Tags: [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
      }),
    );
    await clients.elb.send(new RemoveTagsCommand({ LoadBalancerNames: ['lb'], Tags: [{ Key: 'a' }] }));
    const tags = await clients.elb.send(new DescribeTagsCommand({ LoadBalancerNames: ['lb'] }));
    expect(tags.TagDescriptions).toEqual([{ LoadBalancerName: 'lb', Tags: [{ Key: 'b', Value: '2' }] }]);
  });

  it('pages DescribeLoadBalancers with Marker and PageSize', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    for (let i = 0; i < 7; i++)
      emulator.state.elb.create({ name: `lb-${i}`, subnetIds: [EMPTY_ACCOUNT_IDS.subnets[0]] });
    const first = await clients.elb.send(new DescribeLoadBalancersCommand({ PageSize: 4 }));
    expect(first.LoadBalancerDescriptions).toHaveLength(4);
    const second = await clients.elb.send(
      new DescribeLoadBalancersCommand({ PageSize: 4, Marker: first.NextMarker }),
    );
    expect(second.LoadBalancerDescriptions?.map((l) => l.LoadBalancerName)).toEqual(['lb-4', 'lb-5', 'lb-6']);
    expect(second.NextMarker).toBeUndefined();
  });
});
