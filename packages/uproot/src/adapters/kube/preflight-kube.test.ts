import { describe, expect, it } from 'vitest';
import type { V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import { ImageTally, loadBalancerService, nodeFacts } from './kube-facts.js';
import { parseClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import { skipReason } from './kube-read-error.js';
import { RequestCounter } from './request-counter.js';

describe('Kubernetes adapter helpers', () => {
  it('keeps only the node fields and annotations the checks read', () => {
    const node: V1Node = {
      metadata: {
        name: 'n1',
        labels: { a: 'b' },
        annotations: { 'rke2.io/node-args': '["server"]', 'secret-ish': 'x' },
      },
      spec: {
        providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
        taints: [{ key: 'k', effect: 'NoSchedule' }],
        unschedulable: true,
      },
      status: {
        nodeInfo: { kubeletVersion: 'v1.26.15' } as never,
        addresses: [
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'Hostname', address: 'n1' },
        ],
      },
    };
    expect(nodeFacts(node)).toEqual({
      name: 'n1',
      labels: { a: 'b' },
      annotations: { 'rke2.io/node-args': '["server"]' },
      taints: [{ key: 'k', effect: 'NoSchedule' }],
      providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
      kubeletVersion: 'v1.26.15',
      internalIPs: ['10.0.0.1'],
      unschedulable: true,
      // Recorded for `uproot snapshot` (issue 27); the checks read internalIPs.
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
      ],
    });
  });

  it('keeps LoadBalancer Services only, with their ingress hostnames', () => {
    const svc = (type: string): V1Service => ({
      metadata: { name: 's', namespace: 'ns' },
      spec: { type },
      status: { loadBalancer: { ingress: [{ hostname: 'a.elb.amazonaws.com' }, { ip: '1.2.3.4' }] } },
    });
    expect(loadBalancerService(svc('ClusterIP'))).toBeUndefined();
    expect(loadBalancerService(svc('LoadBalancer'))).toEqual({
      namespace: 'ns',
      name: 's',
      annotations: {},
      ingressHostnames: ['a.elb.amazonaws.com'],
    });
  });

  it('tallies distinct images per pod', () => {
    const pod = (name: string, images: string[]): V1Pod => ({
      metadata: { name, namespace: 'ns' },
      spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
    });
    const tally = new ImageTally();
    tally.add(pod('a', ['x:1', 'x:1', 'y:1']));
    tally.add(pod('b', ['x:1']));
    expect(tally.result()).toEqual([
      { image: 'x:1', pods: 2, example: { namespace: 'ns', name: 'a' } },
      { image: 'y:1', pods: 1, example: { namespace: 'ns', name: 'a' } },
    ]);
  });

  it('parses --cluster as NAME or NAMESPACE/NAME and rejects anything else', () => {
    expect(parseClusterRef('prod')).toEqual({ namespace: 'fleet-default', name: 'prod' });
    expect(parseClusterRef('fleet-local/local')).toEqual({ namespace: 'fleet-local', name: 'local' });
    expect(() => parseClusterRef('a/b/c')).toThrow('"a/b/c" is not a cluster name');
  });

  it('turns API errors into skip reasons', () => {
    expect(skipReason({ code: 403, body: '{"message":"forbidden"}' }, 'list', 'storageclasses')).toBe(
      'forbidden: cannot list storageclasses',
    );
    expect(skipReason({ code: 500, body: '{"message":"etcd down"}' }, 'list', 'pods')).toBe(
      'list pods failed: etcd down',
    );
  });

  it('counts requests by call, sorted', () => {
    const c = new RequestCounter();
    c.count('list pods');
    c.count('get version');
    c.count('list pods');
    expect(c.snapshot()).toEqual({ total: 3, byCall: { 'get version': 1, 'list pods': 2 } });
  });
});
