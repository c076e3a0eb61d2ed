import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import { applyFix } from './apply-fix.js';

const subnets = (m: MutableSnapshot) => okValue(okValue(m.aws).subnets);
const services = (m: MutableSnapshot) => okValue(m.kube.loadBalancerServices);

describe('lb-subnets', () => {
  it('passes with role-tagged subnets in every zone and existing load balancers', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'lb-subnets',
      ).status,
    ).toBe('pass');
  });

  it('skips without LoadBalancer Services the CCM manages', () => {
    const none = snapshotWith((m) => (m.kube.loadBalancerServices = { state: 'ok', value: [] }));
    expect(resultOf(none, 'lb-subnets')).toMatchObject({
      status: 'skip',
      reason: 'the cluster has no LoadBalancer Services the CCM manages',
    });
    const classed = snapshotWith((m) => (services(m)[0]!.loadBalancerClass = 'service.k8s.aws/nlb'));
    expect(resultOf(classed, 'lb-subnets').status).toBe('skip');
  });

  it('warns a zone without a role-tagged subnet; the tag fix makes it pass', () => {
    const s = snapshotWith((m) => delete subnets(m)[2]!.tags['kubernetes.io/role/elb']);
    const r = resultOf(s, 'lb-subnets');
    expect(r).toMatchObject({
      status: 'warn',
      message: 'no subnet tagged kubernetes.io/role/elb in us-west-2c',
    });
    if (r.status !== 'warn') throw new Error('expected a warning');
    expect(r.fixes[0]).toMatchObject({
      type: 'ec2-tags',
      create: [{ resourceIds: ['subnet-00000000000000002'], key: 'kubernetes.io/role/elb', value: '1' }],
    });
    expect(resultOf(applyFix(s, r.fixes[0]!), 'lb-subnets').status).toBe('pass');
  });

  it('fails when no zone has a subnet for internal load balancers', () => {
    const s = snapshotWith((m) => {
      services(m)[0]!.annotations['service.beta.kubernetes.io/aws-load-balancer-internal'] = 'true';
      for (const sn of subnets(m)) delete sn.tags['kubernetes.io/role/internal-elb'];
    });
    expect(resultOf(s, 'lb-subnets')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(
        'kubernetes.io/role/internal-elb in us-west-2a, us-west-2b, us-west-2c',
      ),
    });
  });

  it('does not use subnets tagged for another cluster', () => {
    const s = snapshotWith((m) => {
      const t = subnets(m)[0]!.tags;
      delete t['kubernetes.io/cluster/prod'];
      t['kubernetes.io/cluster/staging'] = 'owned';
    });
    expect(resultOf(s, 'lb-subnets').message).toContain('in us-west-2a');
  });

  it('fails a Service whose load balancer no longer exists', () => {
    const s = snapshotWith(
      (m) => (services(m)[0]!.ingressHostnames = ['gone-1.us-west-2.elb.amazonaws.com']),
    );
    expect(resultOf(s, 'lb-subnets')).toMatchObject({
      status: 'fail',
      message: 'Service default/web: load balancer gone-1.us-west-2.elb.amazonaws.com does not exist',
      resources: [{ kind: 'Service', name: 'web', namespace: 'default' }],
    });
  });

  it('names the real cause when the role-tagged subnets belong to another cluster, and a fix to act on', () => {
    const s = snapshotWith((m) =>
      subnets(m).forEach((sn) => {
        delete sn.tags['kubernetes.io/cluster/prod'];
        sn.tags['kubernetes.io/cluster/staging'] = 'owned';
      }),
    );
    const r = resultOf(s, 'lb-subnets');
    expect(r.status).toBe('fail');
    expect(r.message).toBe(
      'no subnet of this cluster tagged kubernetes.io/role/elb in us-west-2a, us-west-2b, us-west-2c: subnet-00000000000000000 (us-west-2a), subnet-00000000000000001 (us-west-2b), subnet-00000000000000002 (us-west-2c) carry the role tag but belong to cluster staging (kubernetes.io/cluster/staging), so the CCM does not use them for cluster prod',
    );
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'ec2-tags',
      create: [
        {
          resourceIds: ['subnet-00000000000000000', 'subnet-00000000000000001', 'subnet-00000000000000002'],
          key: 'kubernetes.io/cluster/prod',
          value: 'shared',
        },
      ],
      commands: [
        'aws ec2 create-tags --region us-west-2 --resources subnet-00000000000000000 subnet-00000000000000001 subnet-00000000000000002 --tags Key=kubernetes.io/cluster/prod,Value=shared',
      ],
    });
    // Applied, the subnets serve both clusters and the check passes.
    const fixed = applyFix(s, r.status === 'fail' ? r.fixes[0]! : (undefined as never));
    expect(resultOf(fixed, 'lb-subnets').status).toBe('pass');
  });
});
