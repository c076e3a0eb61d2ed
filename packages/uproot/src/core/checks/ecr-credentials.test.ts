import { describe, expect, it } from 'vitest';
import {
  okValue,
  resultOf,
  snapshotWith,
  type MutableSnapshot,
  setControlPlaneVersion,
} from './fixtures/mutable.js';
import { isEcrImage } from './ecr-credentials.js';

const ECR = '123456789012.dkr.ecr.us-west-2.amazonaws.com/team/api:1.4';
const withEcr = (m: MutableSnapshot) =>
  okValue(m.kube.images).push({ image: ECR, pods: 4, example: { namespace: 'apps', name: 'api-0' } });

describe('ecr-credentials', () => {
  it.each([
    [ECR, true],
    ['123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com/x:1', true],
    ['123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/x:1', true],
    ['public.ecr.aws/eks/aws-load-balancer-controller:v2', false],
    ['docker.io/library/nginx:1.27', false],
  ])('isEcrImage(%s) = %s', (image, expected) => {
    expect(isEcrImage(image)).toBe(expected);
  });

  it('passes without ECR images', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'ecr-credentials',
      ).status,
    ).toBe('pass');
  });

  it('warns ECR images without a credential provider, with the RKE2 kubelet-arg fix', () => {
    const r = resultOf(snapshotWith(withEcr), 'ecr-credentials');
    expect(r).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('4 pods pull 1 image from ECR'),
    });
    expect(r.status === 'warn' && r.fixes[0]).toMatchObject({
      type: 'config',
      snippet: expect.stringContaining('image-credential-provider-config='),
    });
  });

  it('passes when every RKE2 kubelet shows --image-credential-provider-config', () => {
    const s = snapshotWith((m) => {
      withEcr(m);
      for (const n of okValue(m.kube.nodes)) {
        n.annotations['rke2.io/node-args'] = JSON.stringify([
          'agent',
          '--kubelet-arg',
          'image-credential-provider-config=/etc/ecr.yaml',
        ]);
      }
    });
    expect(resultOf(s, 'ecr-credentials').status).toBe('pass');
  });

  it('passes on 1.27+, where pulls already work without the in-tree provider', () => {
    const s = snapshotWith((m) => {
      withEcr(m);
      setControlPlaneVersion(m, 'v1.27.13+rke2r1');
    });
    expect(resultOf(s, 'ecr-credentials').status).toBe('pass');
  });

  it('skips when pods cannot be listed', () => {
    const s = snapshotWith(
      (m) => (m.kube.images = { state: 'unavailable', reason: 'forbidden: cannot list pods' }),
    );
    expect(resultOf(s, 'ecr-credentials')).toMatchObject({
      status: 'skip',
      reason: 'forbidden: cannot list pods',
    });
  });
});
