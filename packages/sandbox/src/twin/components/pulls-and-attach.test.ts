import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from 'uproot/core';
import { imagePullError } from './image-pull.js';
import { ebsAttachError } from './volume-attach.js';

const v = (raw: string) => parseKubernetesVersion(raw);
const ECR = '123456789012.dkr.ecr.us-east-1.amazonaws.com/team/app:1.0';

describe('ECR pulls without a credential provider (kubernetes/kubernetes#116329)', () => {
  it('pull with the in-tree provider up to 1.26, and with the plugin configured on any version', () => {
    expect(
      imagePullError(ECR, { version: v('1.26.15'), args: [] }, 'containerd://1.7.11-k3s2'),
    ).toBeUndefined();
    expect(
      imagePullError(
        ECR,
        { version: v('1.27.16'), args: ['--image-credential-provider-config=/etc/cp.yaml'] },
        'containerd://1.7.11',
      ),
    ).toBeUndefined();
    expect(
      imagePullError(
        'docker.io/library/nginx:1.27',
        { version: v('1.30.0'), args: [] },
        'containerd://1.7.11',
      ),
    ).toBeUndefined();
  });

  it('fail from 1.27 in each runtime’s words', () => {
    const at = (runtime: string) => imagePullError(ECR, { version: v('1.27.16'), args: [] }, runtime);
    expect(at('containerd://1.7.11-k3s2')).toBe(
      `rpc error: code = Unknown desc = failed to pull and unpack image "${ECR}": failed to resolve reference "${ECR}": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`,
    );
    expect(at('containerd://1.6.28')).toBe(
      `rpc error: code = Unknown desc = failed to pull and unpack image "${ECR}": failed to resolve reference "${ECR}": pulling from host 123456789012.dkr.ecr.us-east-1.amazonaws.com failed with status code [manifests 1.0]: 401 Unauthorized`,
    );
    expect(at('docker://20.10.24')).toBe(
      'rpc error: code = Unknown desc = Error response from daemon: Head "https://123456789012.dkr.ecr.us-east-1.amazonaws.com/v2/team/app/manifests/1.0": no basic auth credentials',
    );
  });
});

describe('EBS attach without the EBS CSI driver', () => {
  const inTree = { name: 'data-0', volumeId: 'vol-0abc', source: 'in-tree' as const };
  it('attaches in-tree volumes with the in-tree plugin before CSI migration was locked on (1.25)', () => {
    expect(ebsAttachError(inTree, v('1.24.17'), false)).toBeUndefined();
    expect(ebsAttachError(inTree, v('1.27.16'), true)).toBeUndefined();
  });

  it('times out waiting for the external-attacher of ebs.csi.aws.com from 1.25, and always for CSI volumes', () => {
    const message =
      'AttachVolume.Attach failed for volume "data-0" : timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to attach volume vol-0abc';
    expect(ebsAttachError(inTree, v('1.25.0'), false)).toBe(message);
    expect(ebsAttachError(inTree, v('1.27.16'), false)).toBe(message);
    expect(ebsAttachError({ ...inTree, source: 'csi' }, v('1.24.17'), false)).toBe(message);
  });
});
