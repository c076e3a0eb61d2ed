import { expect, it } from 'vitest';
import { v2Failure, type V2Account } from './twin-accounts.js';

/** Classic ELB (2012-06-01) and ELBv2 (2015-12-01) through v2: the Services' load balancers and the errors. */
export function elbConformance(account: () => V2Account): void {
  it('describes the classic ELBs the in-tree provider made, with their tags and instances', async () => {
    const a = account();
    const out = await a.elb.describeLoadBalancers({}).promise();
    const lbs = out.LoadBalancerDescriptions ?? [];
    expect(lbs.length).toBe(a.twin.scenario.workloads.loadBalancerServices.length);
    const lb = lbs[0]!;
    expect(lb.DNSName).toMatch(
      new RegExp(`^${lb.LoadBalancerName}-\\d+\\.${a.twin.aws.region}\\.elb\\.amazonaws\\.com$`),
    );
    // The service controller keeps what it registers (kubeadm's control plane is excluded by its label).
    const registered = lb.Instances?.map((i) => i.InstanceId!) ?? [];
    expect(registered.length).toBeGreaterThan(0);
    expect(a.instanceIds).toEqual(expect.arrayContaining(registered));
    const tags = await a.elb.describeTags({ LoadBalancerNames: [lb.LoadBalancerName!] }).promise();
    expect(tags.TagDescriptions?.[0]?.Tags).toEqual(
      expect.arrayContaining([{ Key: `kubernetes.io/cluster/${a.clusterId}`, Value: 'owned' }]),
    );
    const health = await a.elb.describeInstanceHealth({ LoadBalancerName: lb.LoadBalancerName! }).promise();
    expect(health.InstanceStates?.map((h) => h.InstanceId).sort()).toEqual([...registered].sort());
  });

  it('answers classic ELB errors with their codes', async () => {
    const a = account();
    expect(await v2Failure(a.elb.describeLoadBalancers({ LoadBalancerNames: ['no-such-lb'] }))).toMatchObject(
      {
        code: 'LoadBalancerNotFound',
        statusCode: 400,
        message: "There is no ACTIVE Load Balancer named 'no-such-lb'",
      },
    );
    const lb = (await a.elb.describeLoadBalancers({}).promise()).LoadBalancerDescriptions![0]!;
    expect(
      await v2Failure(
        a.elb.describeInstanceHealth({
          LoadBalancerName: lb.LoadBalancerName!,
          Instances: [{ InstanceId: 'i-0123456789abcdef0' }],
        }),
      ),
    ).toMatchObject({ code: 'InvalidInstance' });
    expect(
      await v2Failure(
        a.elb.createLoadBalancer({
          LoadBalancerName: 'conformance',
          Listeners: [{ Protocol: 'TCP', LoadBalancerPort: 80, InstancePort: 30080 }],
        }),
      ),
    ).toMatchObject({ code: 'ValidationError' });
  });

  it('answers ELBv2 errors with their codes', async () => {
    const a = account();
    expect((await a.elbv2.describeLoadBalancers({}).promise()).LoadBalancers).toEqual([]);
    expect(await v2Failure(a.elbv2.describeLoadBalancers({ Names: ['no-such-nlb'] }))).toMatchObject({
      code: 'LoadBalancerNotFound',
      statusCode: 400,
    });
    expect(
      await v2Failure(
        a.elbv2.describeTargetGroups({
          TargetGroupArns: [
            `arn:aws:elasticloadbalancing:${a.twin.aws.region}:${a.twin.aws.accountId}:targetgroup/nope/0123456789abcdef`,
          ],
        }),
      ),
    ).toMatchObject({ code: 'TargetGroupNotFound' });
    const vpcId = a.twin.aws.state.ec2.vpcs()[0]!.id;
    const tg = { Name: 'conformance-tg', Protocol: 'TCP', Port: 30080, VpcId: vpcId, TargetType: 'instance' };
    const created = await a.elbv2.createTargetGroup(tg).promise();
    expect(created.TargetGroups?.[0]?.TargetGroupName).toBe('conformance-tg');
    expect(await v2Failure(a.elbv2.createTargetGroup({ ...tg, Port: 30081 }))).toMatchObject({
      code: 'DuplicateTargetGroupName',
    });
    await a.elbv2.deleteTargetGroup({ TargetGroupArn: created.TargetGroups![0]!.TargetGroupArn! }).promise();
  });
}
