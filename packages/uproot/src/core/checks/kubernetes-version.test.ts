import { describe, expect, it } from 'vitest';
import { okValue, resultOf, setControlPlaneVersion, snapshotWith } from './fixtures/mutable.js';

const at = (gitVersion: string) => snapshotWith((s) => setControlPlaneVersion(s, gitVersion));

describe('kubernetes-version', () => {
  it.each([
    ['v1.26.15+rke2r1', undefined, 'pass', /GA; migrate as part of the 1.26 → 1.27 upgrade/],
    ['v1.22.17', undefined, 'pass', /beta, default configuration/],
    ['v1.21.14', undefined, 'warn', /alpha; it needs the ControllerManagerLeaderMigration feature gate/],
    ['v1.20.15', undefined, 'fail', /predates leader migration/],
    ['v1.27.3', undefined, 'pass', /has no in-tree AWS provider/],
    ['v1.26.15', '1.27', 'pass', /migrate as part of the upgrade to 1.27/],
    ['v1.26.15', '1.26', 'pass', /migrate at 1.26 without upgrading, then upgrade to 1.27/],
    [
      'v1.26.15',
      '1.29',
      'pass',
      /upgrade to 1.27, then 2 upgrade\(s\) of one minor each to v1.29.15\+rke2r1/,
    ],
    [
      'v1.25.16',
      '1.27',
      'pass',
      /upgrade to 1.26, then 1 upgrade\(s\) of one minor each to v1.27.16\+rke2r2/,
    ],
    ['v1.26.15', '1.25', 'fail', /older than the cluster/],
    ['v1.26.15', '1.45', 'fail', /uproot knows no rke2 release of 1.45/],
  ] as const)('%s with target %s: %s', (version, target, status, message) => {
    const r = resultOf(at(version), 'kubernetes-version', target ? { targetVersion: target } : {});
    expect(r.status).toBe(status);
    expect(r.message).toMatch(message);
  });

  it('falls back to the oldest kubelet when neither control-plane pods nor /version are readable', () => {
    const s = snapshotWith((m) => {
      m.kube.server = { state: 'unavailable', reason: 'forbidden' };
      m.kube.componentPods = { state: 'unavailable', reason: 'forbidden' };
      okValue(m.kube.nodes)[0]!.kubeletVersion = 'v1.25.3+rke2r1';
    });
    expect(resultOf(s, 'kubernetes-version').message).toContain('Kubernetes v1.25.3+rke2r1');
  });

  it('takes the control plane\u2019s version from its pods over a /version that disagrees', () => {
    // The twin used to answer v1.32.4 whatever it ran; a healthy 1.26 cluster targeting 1.27 passes.
    const s = snapshotWith((m) => {
      m.kube.server = { state: 'ok', value: { gitVersion: 'v1.32.4' } };
    });
    const r = resultOf(s, 'kubernetes-version', { targetVersion: 'v1.27.16+rke2r1' });
    expect(r.status).toBe('pass');
    expect(r.message).toContain('Kubernetes v1.26.15+rke2r1:');
    expect(r.message).toContain('migrate as part of the upgrade to 1.27');
  });

  it('uses /version where no kube-apiserver or manager pod is visible (RKE)', () => {
    const s = snapshotWith((m) => {
      m.kube.componentPods = { state: 'ok', value: [] };
      m.kube.server = { state: 'ok', value: { gitVersion: 'v1.26.15' } };
    });
    expect(resultOf(s, 'kubernetes-version', { targetVersion: '1.27' }).details).toContain(
      'kube-apiserver v1.26.15: /version',
    );
  });

  it('refuses an RKE target past RKE\u2019s last minor, saying what to do instead', () => {
    const s = snapshotWith((m) => {
      m.kube.componentPods = { state: 'ok', value: [] };
      m.kube.server = { state: 'ok', value: { gitVersion: 'v1.26.15' } };
      for (const n of okValue(m.kube.nodes)) {
        n.kubeletVersion = 'v1.26.15';
        n.annotations = {};
        n.labels = { 'node-role.kubernetes.io/controlplane': 'true' };
      }
    });
    const r = resultOf(s, 'kubernetes-version', { targetVersion: '1.33' });
    expect(r.status).toBe('fail');
    expect(r.message).toContain('RKE runs Kubernetes up to 1.31');
    expect(r.status === 'fail' && r.fixes[0]?.description).toContain('move the cluster to RKE2');
  });

  it('skips without any version', () => {
    const s = snapshotWith((m) => {
      m.kube.server = { state: 'unavailable', reason: 'forbidden: cannot get version' };
      m.kube.componentPods = { state: 'unavailable', reason: 'forbidden' };
      m.kube.nodes = { state: 'ok', value: [] };
    });
    expect(resultOf(s, 'kubernetes-version')).toMatchObject({
      status: 'skip',
      reason: 'forbidden: cannot get version',
    });
  });
});
