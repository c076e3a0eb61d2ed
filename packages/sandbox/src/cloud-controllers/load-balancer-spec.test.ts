import { describe, expect, it } from 'vitest';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import {
  defaultLoadBalancerName,
  loadBalancerKind,
  needsCleanup,
  targetGroupName,
  targetInstanceIds,
  validateForAws,
  wantsLoadBalancer,
} from './load-balancer-spec.js';

const svc = (spec: V1Service['spec'], meta: V1Service['metadata'] = {}): V1Service => ({
  metadata: { name: 'web', namespace: 'default', uid: 'u', ...meta },
  spec,
});

describe('load balancer rules', () => {
  it('names the load balancer a + UID without dashes, 32 characters at most', () => {
    expect(defaultLoadBalancerName('6f1c2a3b-1111-2222-3333-444455556666')).toBe(
      'a6f1c2a3b111122223333444455556666'.slice(0, 32),
    );
    expect(defaultLoadBalancerName('abc')).toBe('aabc');
  });

  it('tells classic, NLB and external apart by annotation', () => {
    expect(loadBalancerKind(svc({}))).toBe('classic');
    const ann = (v: string) =>
      svc({}, { annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': v } });
    expect(loadBalancerKind(ann('nlb'))).toBe('nlb');
    expect(loadBalancerKind(ann('external'))).toBe('external');
  });

  it('wants a load balancer for type LoadBalancer without a class', () => {
    expect(wantsLoadBalancer(svc({ type: 'LoadBalancer' }))).toBe(true);
    expect(wantsLoadBalancer(svc({ type: 'LoadBalancer', loadBalancerClass: 'other' }))).toBe(false);
    expect(wantsLoadBalancer(svc({ type: 'ClusterIP' }))).toBe(false);
  });

  it('needs cleanup when the finalizer is on and the Service is deleted or changed type', () => {
    const fin = { finalizers: ['service.kubernetes.io/load-balancer-cleanup'] };
    expect(needsCleanup(svc({ type: 'LoadBalancer' }, fin))).toBe(false);
    expect(needsCleanup(svc({ type: 'ClusterIP' }, fin))).toBe(true);
    expect(needsCleanup(svc({ type: 'LoadBalancer' }, { ...fin, deletionTimestamp: new Date() }))).toBe(true);
    expect(needsCleanup(svc({ type: 'ClusterIP' }))).toBe(false);
  });

  it('rejects what AWS cannot do with upstream messages', () => {
    const port = { port: 80, nodePort: 30080, protocol: 'TCP' };
    expect(validateForAws(svc({ type: 'LoadBalancer', ports: [port] }), 'classic')).toBeUndefined();
    expect(validateForAws(svc({ type: 'LoadBalancer', ports: [] }), 'classic')).toBe(
      'requested load balancer with no ports',
    );
    expect(validateForAws(svc({ ports: [{ ...port, protocol: 'UDP' }] }), 'classic')).toBe(
      'Protocol UDP not supported by LoadBalancer',
    );
    expect(validateForAws(svc({ ports: [{ ...port, protocol: 'UDP' }] }), 'nlb')).toBeUndefined();
    expect(validateForAws(svc({ ports: [port, { ...port, protocol: 'UDP' }] }), 'nlb')).toBe(
      'mixed protocol is not supported for LoadBalancer',
    );
    expect(validateForAws(svc({ ports: [port], loadBalancerIP: '1.2.3.4' }), 'classic')).toBe(
      'LoadBalancerIP cannot be specified for AWS ELB',
    );
    expect(validateForAws(svc({ ports: [port], sessionAffinity: 'ClientIP' }), 'classic')).toBe(
      'unsupported load balancer affinity: ClientIP',
    );
  });

  it('targets initialized nodes with a provider ID that are not excluded', () => {
    const node = (
      name: string,
      extra: Partial<V1Node> = {},
      labels: Record<string, string> = {},
    ): V1Node => ({
      metadata: { name, labels },
      spec: { providerID: `aws:///us-east-1a/i-${name}` },
      ...extra,
    });
    const nodes: V1Node[] = [
      node('b'),
      node('a'),
      node('x', {}, { 'node.kubernetes.io/exclude-from-external-load-balancers': '' }),
      { metadata: { name: 'noid' }, spec: {} },
      node('t', {
        spec: {
          providerID: 'aws:///us-east-1a/i-t',
          taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' }],
        },
      }),
    ];
    expect(targetInstanceIds(nodes)).toEqual(['i-a', 'i-b']);
  });

  it('names NLB target groups k8s-<ns>-<name>-<hash> within 32 characters', () => {
    const name = targetGroupName('production', 'frontend-web', {
      port: 80,
      nodePort: 30080,
      protocol: 'TCP',
    });
    expect(name).toMatch(/^k8s-producti-frontend-[0-9a-f]{10}$/);
    expect(name.length).toBeLessThanOrEqual(32);
    expect(
      targetGroupName('production', 'frontend-web', { port: 443, nodePort: 30443, protocol: 'TCP' }),
    ).not.toBe(name);
  });
});
