import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import type { RkeDefinition } from './facts/cluster-definition.js';

function rke(m: MutableSnapshot, def: Partial<RkeDefinition>): void {
  m.kube.clusterDefinition = {
    state: 'ok',
    value: {
      distro: 'rke',
      source: 'cluster.yml',
      nodes: [{ address: '10.0.0.10', roles: ['controlplane'] }],
      kcmExtraArgs: {},
      ...structuredClone(def),
    } as never,
  };
}

describe('node-name-settings', () => {
  it('passes RKE2 nodes started with cloud-provider-name aws (rke2.io/node-args)', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'node-name-settings',
      ),
    ).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('names nodes from instance metadata'),
    });
  });

  it('warns RKE2 without cloud-provider-name aws or node-name', () => {
    const s = snapshotWith((m) =>
      okValue(m.kube.nodes).forEach((n) => (n.annotations['rke2.io/node-args'] = '["server"]')),
    );
    expect(resultOf(s, 'node-name-settings')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('named by hostname'),
    });
  });

  it('warns RKE2 nodes that disagree', () => {
    const s = snapshotWith(
      (m) =>
        (okValue(m.kube.nodes)[0]!.annotations['rke2.io/node-args'] =
          '["server","--cloud-provider-name","external"]'),
    );
    expect(resultOf(s, 'node-name-settings').message).toContain(
      'disagree on cloud-provider-name (aws, external)',
    );
  });

  it('fails RKE useInstanceMetadataHostname together with hostname_override', () => {
    const s = snapshotWith((m) =>
      rke(m, {
        cloudProviderName: 'external-aws',
        useInstanceMetadataHostname: true,
        nodes: [{ address: '10.0.0.10', hostnameOverride: 'cp-1', roles: ['controlplane'] }],
      }),
    );
    expect(resultOf(s, 'node-name-settings')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('do not combine them'),
    });
  });

  it('fails RKE external-aws without useInstanceMetadataHostname, passes with it', () => {
    const bare = snapshotWith((m) => rke(m, { cloudProviderName: 'external-aws' }));
    expect(resultOf(bare, 'node-name-settings')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('register as new Nodes'),
    });
    const good = snapshotWith((m) =>
      rke(m, { cloudProviderName: 'external-aws', useInstanceMetadataHostname: true }),
    );
    expect(resultOf(good, 'node-name-settings').status).toBe('pass');
    const inTree = snapshotWith((m) => rke(m, { cloudProviderName: 'aws' }));
    expect(resultOf(inTree, 'node-name-settings').message).toContain('set useInstanceMetadataHostname: true');
  });

  it('skips kubeadm and clusters whose settings are not visible', () => {
    const kubeadm = snapshotWith((m) =>
      okValue(m.kube.nodes).forEach((n) => {
        n.kubeletVersion = 'v1.26.15';
        n.annotations = {};
      }),
    );
    expect(resultOf(kubeadm, 'node-name-settings')).toMatchObject({
      status: 'skip',
      reason: expect.stringContaining('kubeadm'),
    });
  });
});
