import { describe, expect, it } from 'vitest';
import { isRke2CloudProviderImage } from '../components/rke2-cloud-controller.js';
import { runningPodStatus } from './pod-status.js';
import { ccmVersionOf } from './static-pod-set.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

function imageIdOf(image: string): unknown {
  const status = runningPodStatus({
    pod: { metadata: { uid: '1234-5678' }, spec: { containers: [{ name: 'c', image }] } },
    hostIp: '10.0.0.1',
    podIp: undefined,
    now: 0,
    startedAt: 0,
    containers: new Map(),
  }) as { containerStatuses: { imageID: string }[] };
  return status.containerStatuses[0]?.imageID;
}

describe('the twin reads image references as the runtime does', () => {
  it('takes a digest-pinned CCM image at its tag, not at the digest (which read as v1.35.0)', () => {
    const image = `mirror.internal:5000/provider-aws/cloud-controller-manager:v1.27.8@${DIGEST}`;
    expect(ccmVersionOf(image).raw).toBe('v1.27.8');
    expect(ccmVersionOf('registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11').raw).toBe(
      'v1.26.11',
    );
  });

  it('reports an imageID with the registry port (it was cut at the port) and the pinned digest', () => {
    expect(imageIdOf('mirror.internal:5000/kube-apiserver:v1.27.16')).toBe(
      `mirror.internal:5000/kube-apiserver@sha256:12345678${'0'.repeat(56)}`,
    );
    expect(imageIdOf(`registry.k8s.io/kube-apiserver@${DIGEST}`)).toBe(
      `registry.k8s.io/kube-apiserver@${DIGEST}`,
    );
  });

  it("knows RKE2's cloud provider under each of Docker Hub's names", () => {
    expect(
      isRke2CloudProviderImage('index.docker.io/rancher/rke2-cloud-provider:v1.29.3-build20240412'),
    ).toBe(true);
    expect(isRke2CloudProviderImage('rancher/rke2-cloud-provider:v1.29.3-build20240412')).toBe(true);
    expect(isRke2CloudProviderImage('docker.io/rancher/rke2-cloud-provider:v1.29.3-build20240412')).toBe(
      true,
    );
    expect(isRke2CloudProviderImage('registry.k8s.io/provider-aws/cloud-controller-manager:v1.29.3')).toBe(
      false,
    );
  });
});
