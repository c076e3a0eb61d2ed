import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import type { DaemonSetFacts } from '../model/snapshot.js';

const ccmOnPodNetwork: DaemonSetFacts = {
  namespace: 'kube-system',
  name: 'aws-cloud-controller-manager',
  labels: {},
  containers: [
    { name: 'ccm', image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11', args: [] },
  ],
  nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
  tolerations: [{ operator: 'Exists' }],
  hostNetwork: false,
};

function metadata(m: MutableSnapshot, httpTokens: string, hopLimit: number): void {
  for (const i of okValue(okValue(m.aws).instances))
    i.metadataOptions = { httpTokens, httpPutResponseHopLimit: hopLimit, httpEndpoint: 'enabled' };
}

const withCcm = (hostNetwork: boolean) => (m: MutableSnapshot) =>
  (m.kube.daemonSets = {
    state: 'ok',
    value: [{ ...structuredClone(ccmOnPodNetwork), hostNetwork }] as never,
  });

describe('instance-metadata', () => {
  it('passes a healthy cluster and says what it saw', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'instance-metadata',
      ),
    ).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('6 instances: 0 require IMDSv2 tokens, 6 with a hop limit of 1'),
    });
  });

  it('warns a pod-network CCM on hop-limit-1 instances that require tokens, with both fixes as actions', () => {
    const s = snapshotWith((m) => {
      withCcm(false)(m);
      metadata(m, 'required', 1);
      okValue(m.kube.nodes).forEach((n) => (n.kubeletVersion = 'v1.29.11+rke2r1'));
    });
    const r = resultOf(s, 'instance-metadata');
    expect(r.status).toBe('warn');
    expect(r.message).toContain('runs on the pod network');
    expect(r.message).toContain('cannot read its region, instance id or role credentials');
    expect(r.resources).toHaveLength(3);
    if (r.status !== 'warn') return;
    expect(r.fixes[0]).toMatchObject({ type: 'config', snippet: 'hostNetworking: true\n' });
    expect(r.fixes[1]).toMatchObject({
      type: 'commands',
      commands: expect.arrayContaining([
        'aws ec2 modify-instance-metadata-options --region us-west-2 --instance-id i-00001000000000000 --http-put-response-hop-limit 2 --http-endpoint enabled',
      ]),
    });
  });

  it('says a pod-network CCM falls back to IMDSv1 when tokens are optional', () => {
    const r = resultOf(
      snapshotWith((m) => {
        withCcm(false)(m);
        metadata(m, 'optional', 1);
      }),
      'instance-metadata',
    );
    expect(r).toMatchObject({ status: 'warn', message: expect.stringContaining('falls back to IMDSv1') });
  });

  it('passes a host-network CCM, and a pod-network one when the hop limit is 2', () => {
    for (const [hostNetwork, hop] of [
      [true, 1],
      [false, 2],
    ] as const) {
      const s = snapshotWith((m) => {
        withCcm(hostNetwork)(m);
        metadata(m, 'required', hop);
        okValue(m.kube.nodes).forEach((n) => (n.kubeletVersion = 'v1.30.7+rke2r1'));
      });
      expect(resultOf(s, 'instance-metadata').status).toBe('pass');
    }
  });

  it.each([
    ['v1.26.15+rke2r1', 'warn'],
    ['v1.28.15+rke2r1', 'warn'],
    ['v1.29.10+rke2r1', 'warn'],
    ['v1.29.11+rke2r1', 'pass'],
    ['v1.30.6+rke2r1', 'warn'],
    ['v1.30.7+rke2r1', 'pass'],
    ['v1.31.3+rke2r1', 'pass'],
    ['v1.32.0+rke2r1', 'pass'],
  ])('RKE2 %s naming nodes from metadata on tokens-required instances: %s', (version, status) => {
    const s = snapshotWith((m) => {
      metadata(m, 'required', 2);
      okValue(m.kube.nodes).forEach((n) => (n.kubeletVersion = version));
    });
    const r = resultOf(s, 'instance-metadata');
    expect(r.status).toBe(status);
    if (r.status !== 'warn') return;
    expect(r.message).toContain('rancher/rke2#7343');
    expect(r.fixes.map((f) => f.type)).toEqual(['commands', 'config']);
    expect(r.fixes[0]).toMatchObject({
      commands: expect.arrayContaining([expect.stringContaining('--http-tokens optional')]),
    });
  });

  it('leaves RKE2 nodes with node-name alone', () => {
    const s = snapshotWith((m) => {
      metadata(m, 'required', 2);
      for (const n of okValue(m.kube.nodes))
        n.annotations['rke2.io/node-args'] = JSON.stringify(['server', '--node-name', n.name]);
    });
    expect(resultOf(s, 'instance-metadata').status).toBe('pass');
  });

  it('skips when EC2 reported no metadata options', () => {
    const s = snapshotWith((m) => {
      for (const i of okValue(okValue(m.aws).instances)) delete i.metadataOptions;
    });
    expect(resultOf(s, 'instance-metadata')).toMatchObject({ status: 'skip' });
  });
});
