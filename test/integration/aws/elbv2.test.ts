import {
  AddTagsCommand,
  CreateListenerCommand,
  CreateLoadBalancerCommand,
  CreateTargetGroupCommand,
  DeleteLoadBalancerCommand,
  DeleteTargetGroupCommand,
  DeregisterTargetsCommand,
  DescribeListenersCommand,
  DescribeLoadBalancerAttributesCommand,
  DescribeLoadBalancersCommand,
  DescribeTagsCommand,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  ModifyLoadBalancerAttributesCommand,
  ModifyTargetGroupCommand,
  RegisterTargetsCommand,
  RemoveTagsCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, EMPTY_ACCOUNT_IDS } from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor, failureOf } from './helpers.js';

describe('Elastic Load Balancing v2 (2015-12-01)', () => {
  it('builds a network load balancer with a target group and listener, as the CCM does for NLB services', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const nodes = [emulator.state.runInstance({}).id, emulator.state.runInstance({}).id];
    const { LoadBalancers } = await clients.elbv2.send(
      new CreateLoadBalancerCommand({
        Name: 'k8s-default-web-abc',
        Type: 'network',
        Scheme: 'internet-facing',
        Subnets: [...EMPTY_ACCOUNT_IDS.subnets],
        Tags: [{ Key: 'kubernetes.io/service-name', Value: 'default/web' }],
      }),
    );
    const lb = LoadBalancers![0]!;
    expect(lb.LoadBalancerArn).toMatch(
      /^arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer\/net\/k8s-default-web-abc\/[0-9a-f]{16}$/,
    );
    expect(lb.DNSName).toMatch(/^k8s-default-web-abc-[0-9a-f]{16}\.elb\.us-east-1\.amazonaws\.com$/);
    expect(lb.State?.Code).toBe('active');
    expect(lb.AvailabilityZones?.map((z) => z.ZoneName)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);

    const { TargetGroups } = await clients.elbv2.send(
      new CreateTargetGroupCommand({
        Name: 'k8s-web-tg',
        Protocol: 'TCP',
        Port: 30080,
        VpcId: EMPTY_ACCOUNT_IDS.vpc,
        TargetType: 'instance',
      }),
    );
    const tg = TargetGroups![0]!;
    await clients.elbv2.send(
      new RegisterTargetsCommand({ TargetGroupArn: tg.TargetGroupArn, Targets: nodes.map((Id) => ({ Id })) }),
    );
    const unused = await clients.elbv2.send(
      new DescribeTargetHealthCommand({ TargetGroupArn: tg.TargetGroupArn }),
    );
    expect(
      unused.TargetHealthDescriptions?.map((d) => [d.TargetHealth?.State, d.TargetHealth?.Reason]),
    ).toEqual([
      ['unused', 'Target.NotInUse'],
      ['unused', 'Target.NotInUse'],
    ]);
    const { Listeners } = await clients.elbv2.send(
      new CreateListenerCommand({
        LoadBalancerArn: lb.LoadBalancerArn,
        Protocol: 'TCP',
        Port: 80,
        DefaultActions: [{ Type: 'forward', TargetGroupArn: tg.TargetGroupArn }],
      }),
    );
    expect(Listeners?.[0]?.ListenerArn).toMatch(/:listener\/net\/k8s-default-web-abc\//);
    emulator.state.ec2.setInstanceState(nodes[1]!, 'stopped');
    const health = await clients.elbv2.send(
      new DescribeTargetHealthCommand({ TargetGroupArn: tg.TargetGroupArn }),
    );
    expect(
      health.TargetHealthDescriptions?.map((d) => [d.Target?.Id, d.Target?.Port, d.TargetHealth?.State]),
    ).toEqual([
      [nodes[0], 30080, 'healthy'],
      [nodes[1], 30080, 'unused'],
    ]);
    const groups = await clients.elbv2.send(
      new DescribeTargetGroupsCommand({ LoadBalancerArn: lb.LoadBalancerArn }),
    );
    expect(groups.TargetGroups?.[0]).toMatchObject({
      TargetGroupName: 'k8s-web-tg',
      LoadBalancerArns: [lb.LoadBalancerArn],
      HealthCheckPort: 'traffic-port',
    });
    const listeners = await clients.elbv2.send(
      new DescribeListenersCommand({ LoadBalancerArn: lb.LoadBalancerArn }),
    );
    expect(listeners.Listeners?.[0]?.DefaultActions?.[0]).toMatchObject({
      Type: 'forward',
      TargetGroupArn: tg.TargetGroupArn,
    });

    const inUse = await failureOf(
      clients.elbv2.send(new DeleteTargetGroupCommand({ TargetGroupArn: tg.TargetGroupArn })),
    );
    expect(inUse.name).toBe('ResourceInUseException');
    await clients.elbv2.send(
      new DeregisterTargetsCommand({ TargetGroupArn: tg.TargetGroupArn, Targets: [{ Id: nodes[0] }] }),
    );
    await clients.elbv2.send(new DeleteLoadBalancerCommand({ LoadBalancerArn: lb.LoadBalancerArn }));
    await clients.elbv2.send(new DeleteTargetGroupCommand({ TargetGroupArn: tg.TargetGroupArn }));
    const gone = await failureOf(
      clients.elbv2.send(new DescribeLoadBalancersCommand({ LoadBalancerArns: [lb.LoadBalancerArn!] })),
    );
    expect(gone.name).toBe('LoadBalancerNotFoundException');
    expect(gone.$metadata.httpStatusCode).toBe(400);
  });

  it('modifies attributes and health checks, tags by ARN, and rejects unknown target groups', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const lb = emulator.state.elbv2.createLoadBalancer({
      name: 'nlb',
      type: 'network',
      subnetIds: [EMPTY_ACCOUNT_IDS.subnets[0]],
    });
    await clients.elbv2.send(
      new ModifyLoadBalancerAttributesCommand({
        LoadBalancerArn: lb.arn,
        Attributes: [{ Key: 'load_balancing.cross_zone.enabled', Value: 'true' }],
      }),
    );
    const attrs = await clients.elbv2.send(
      new DescribeLoadBalancerAttributesCommand({ LoadBalancerArn: lb.arn }),
    );
    expect(attrs.Attributes).toContainEqual({ Key: 'load_balancing.cross_zone.enabled', Value: 'true' });
    const badKey = await failureOf(
      clients.elbv2.send(
        new ModifyLoadBalancerAttributesCommand({
          LoadBalancerArn: lb.arn,
          Attributes: [{ Key: 'nope', Value: '1' }],
        }),
      ),
    );
    expect(badKey.name).toBe('ValidationError');

    const tg = emulator.state.elbv2.createTargetGroup({
      name: 'tg',
      port: 31000,
      vpcId: EMPTY_ACCOUNT_IDS.vpc,
    });
    const modified = await clients.elbv2.send(
      new ModifyTargetGroupCommand({
        TargetGroupArn: tg.arn,
        HealthCheckPort: '32000',
        HealthCheckIntervalSeconds: 10,
      }),
    );
    expect(modified.TargetGroups?.[0]).toMatchObject({
      HealthCheckPort: '32000',
      HealthCheckIntervalSeconds: 10,
      HealthCheckProtocol: 'TCP',
    });

    await clients.elbv2.send(
      new AddTagsCommand({ ResourceArns: [lb.arn, tg.arn], Tags: [{ Key: 'owner', Value: 'ccm' }] }),
    );
    await clients.elbv2.send(new RemoveTagsCommand({ ResourceArns: [tg.arn], TagKeys: ['owner'] }));
    const tags = await clients.elbv2.send(new DescribeTagsCommand({ ResourceArns: [lb.arn, tg.arn] }));
    expect(tags.TagDescriptions).toEqual([
      { ResourceArn: lb.arn, Tags: [{ Key: 'owner', Value: 'ccm' }] },
      { ResourceArn: tg.arn, Tags: [] },
    ]);
    const missing = await failureOf(
      clients.elbv2.send(
        new DescribeTargetGroupsCommand({
          TargetGroupArns: [tg.arn.replace(/[0-9a-f]{16}$/, '0000000000000000')],
        }),
      ),
    );
    expect(missing.name).toBe('TargetGroupNotFoundException');
  });

  it('refuses to register a target that is not running', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const id = emulator.state.runInstance({ state: 'stopped' }).id;
    const tg = emulator.state.elbv2.createTargetGroup({
      name: 'tg',
      port: 31000,
      vpcId: EMPTY_ACCOUNT_IDS.vpc,
    });
    const error = await failureOf(
      clients.elbv2.send(new RegisterTargetsCommand({ TargetGroupArn: tg.arn, Targets: [{ Id: id }] })),
    );
    expect(error.name).toBe('InvalidTargetException');
  });

  it('pages load balancers with Marker and PageSize', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed() });
    for (let i = 0; i < 5; i++)
      emulator.state.elbv2.createLoadBalancer({
        name: `nlb-${i}`,
        type: 'network',
        subnetIds: [EMPTY_ACCOUNT_IDS.subnets[0]],
      });
    const names: string[] = [];
    let marker: string | undefined;
    do {
      const page = await clients.elbv2.send(
        new DescribeLoadBalancersCommand({ PageSize: 2, Marker: marker }),
      );
      names.push(...(page.LoadBalancers ?? []).map((l) => l.LoadBalancerName!));
      marker = page.NextMarker;
    } while (marker);
    expect(names).toEqual(['nlb-0', 'nlb-1', 'nlb-2', 'nlb-3', 'nlb-4']);
  });
});
