import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import { kindFromHostname } from './lb-type.js';

const web = (m: MutableSnapshot) => okValue(m.kube.loadBalancerServices)[0]!;
const TYPE = 'service.beta.kubernetes.io/aws-load-balancer-type';

describe('lb-type', () => {
  it('passes when each annotation asks for the kind that serves the Service', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'lb-type',
      ),
    ).toMatchObject({
      status: 'pass',
      message: '1 LoadBalancer Service: each asks for the kind of load balancer that serves it',
    });
  });

  it('fails an nlb annotation on a Service served by a classic ELB, with the annotation to remove', () => {
    const r = resultOf(
      snapshotWith((m) => (web(m).annotations[TYPE] = 'nlb')),
      'lb-type',
    );
    expect(r.status).toBe('fail');
    expect(r.message).toBe(
      `Service default/web is served by classic ELB a1b2c3-123456789.us-west-2.elb.amazonaws.com but its ${TYPE} annotation asks for an NLB: the next service controller to sync it (every controller manager restarts during the migration) creates an NLB with a new address and leaves a1b2c3-123456789.us-west-2.elb.amazonaws.com running (kubernetes/cloud-provider-aws#1254)`,
    );
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'commands',
      commands: [`kubectl -n default annotate service web ${TYPE}-`],
    });
    expect(r.resources).toEqual([{ kind: 'Service', name: 'web', namespace: 'default' }]);
  });

  it('reads the kind from ELBv2 (an NLB without annotation) and says v1.36 refuses instead of leaking', () => {
    const s = snapshotWith((m) => {
      const host = 'a1b2c3-0123456789abcdef.elb.us-west-2.amazonaws.com';
      web(m).ingressHostnames = [host];
      okValue(okValue(m.aws).loadBalancers).push({ name: 'a1b2c3', dnsName: host, type: 'network' });
    });
    const r = resultOf(s, 'lb-type', { targetVersion: '1.36' });
    expect(r.message).toContain('asks for a classic ELB: the CCM (v1.36.0 or later) refuses to sync it');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      commands: [`kubectl -n default annotate service web ${TYPE}=nlb --overwrite`],
    });
  });

  it('ignores Services another controller manages', () => {
    const s = snapshotWith((m) => (web(m).annotations[TYPE] = 'external'));
    expect(resultOf(s, 'lb-type').status).toBe('pass');
  });

  it('tells the kinds apart by hostname as kubernetes/cloud-provider-aws#1325 does', () => {
    expect(kindFromHostname('a1-1.us-east-1.elb.amazonaws.com')).toBe('classic');
    expect(kindFromHostname('a1-1f.elb.us-east-1.amazonaws.com')).toBe('network');
    expect(kindFromHostname('a1-1.cn-north-1.elb.amazonaws.com.cn')).toBe('classic');
    expect(kindFromHostname('lb.example.com')).toBeUndefined();
  });
});
