import { describe, expect, it } from 'vitest';
import { podFacts, runsComponent } from './gate-reader.js';
import type { KubeObject } from './kube-objects.js';

const pod = (name: string, labels: Record<string, string>, container: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'kube-system', labels },
  spec: {
    nodeName: 'cp1',
    containers: [{ name: container, image: `registry.k8s.io/x/${container}:v1.26.11`, args: ['--v=2'] }],
  },
  status: {
    phase: 'Running',
    startTime: '2026-01-01T12:00:00Z',
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

describe('manager pods', () => {
  it('finds static pods by label or name, and the CCM chart\u2019s DaemonSet pods by their k8s-app label', () => {
    const chart = pod(
      'aws-cloud-controller-manager-x7k2p',
      { 'k8s-app': 'aws-cloud-controller-manager' },
      'aws-cloud-controller-manager',
    );
    expect(runsComponent(chart, 'cloud-controller-manager')).toBe(true);
    expect(runsComponent(chart, 'kube-controller-manager')).toBe(false);
    expect(
      runsComponent(
        pod('kube-controller-manager-cp1', {}, 'kube-controller-manager'),
        'kube-controller-manager',
      ),
    ).toBe(true);
    expect(
      runsComponent(
        pod('cloud-controller-manager-cp1', { component: 'cloud-controller-manager' }, 'c'),
        'cloud-controller-manager',
      ),
    ).toBe(true);
    expect(
      runsComponent(pod('coredns-5d8f', { 'k8s-app': 'kube-dns' }, 'coredns'), 'cloud-controller-manager'),
    ).toBe(false);
  });
  it('keeps the image and the start time, which tell the version and which holder is the current process', () => {
    const facts = podFacts(
      pod('aws-cloud-controller-manager-x7k2p', {}, 'aws-cloud-controller-manager'),
      'cloud-controller-manager',
    );
    expect(facts).toMatchObject({
      nodeName: 'cp1',
      args: ['--v=2'],
      image: 'registry.k8s.io/x/aws-cloud-controller-manager:v1.26.11',
      startTime: '2026-01-01T12:00:00Z',
      ready: true,
    });
  });
});
