import { describe, expect, it } from 'vitest';
import { okValue, resultOf, setControlPlaneVersion, snapshotWith } from './fixtures/mutable.js';
import { kubeletSkewAllowed } from './version-skew.js';

describe('version-skew', () => {
  it('allows kubelets two minors behind kube-apiserver before 1.28 and three from 1.28 (KEP-3935)', () => {
    expect(kubeletSkewAllowed({ minor: 27 })).toBe(2);
    expect(kubeletSkewAllowed({ minor: 28 })).toBe(3);
  });

  it('passes a healthy cluster on one release', () => {
    const r = resultOf(
      snapshotWith(() => undefined),
      'version-skew',
    );
    expect(r.status).toBe('pass');
    expect(r.message).toContain('the control plane runs 1.26 throughout');
  });

  it('warns when kubelets are more than the allowed skew behind, with the nodes and how to upgrade them', () => {
    const s = snapshotWith((m) => {
      setControlPlaneVersion(m, 'v1.26.15+rke2r1');
      okValue(m.kube.nodes)[4]!.kubeletVersion = 'v1.23.17+rke2r1';
    });
    const r = resultOf(s, 'version-skew');
    expect(r.status).toBe('warn');
    expect(r.message).toMatch(
      /1 kubelet more than 2 minors behind kube-apiserver v1\.26\.15\S* .*before 1\.28.*v1\.23\.17/,
    );
    expect(r.status === 'warn' && r.fixes[0]?.description).toBe(
      'upgrade the kubelets on those nodes to 1.24 or later before the migration',
    );
    // Two behind is within the policy before 1.28.
    const within = snapshotWith((m) => {
      okValue(m.kube.nodes)[4]!.kubeletVersion = 'v1.24.17+rke2r1';
    });
    expect(resultOf(within, 'version-skew').status).toBe('pass');
  });

  it('fails a kubelet newer than kube-apiserver', () => {
    const s = snapshotWith((m) => {
      okValue(m.kube.nodes)[4]!.kubeletVersion = 'v1.27.16+rke2r1';
    });
    const r = resultOf(s, 'version-skew');
    expect(r.status).toBe('fail');
    expect(r.message).toContain('newer than kube-apiserver v1.26.15');
    expect(r.resources).toEqual([{ kind: 'Node', name: okValue(s.kube.nodes)[4]!.name }]);
  });

  it('fails a half-done control-plane upgrade (components at different minors)', () => {
    const s = snapshotWith((m) => {
      const pods = okValue(m.kube.componentPods);
      pods[0]!.image = 'index.docker.io/rancher/hardened-kubernetes:v1.27.16-rke2r1-build20240717';
    });
    const r = resultOf(s, 'version-skew');
    expect(r.status).toBe('fail');
    expect(r.message).toMatch(
      /the control plane runs (1\.26 and 1\.27|1\.27 and 1\.26): an upgrade is half done/,
    );
    expect(r.status === 'fail' && r.fixes[0]?.description).toContain(
      'bring every kube-apiserver, kube-controller-manager and kube-scheduler to 1.27',
    );
  });

  it('judges against /version where the control plane has no pods (RKE), and skips without any', () => {
    const rke = snapshotWith((m) => {
      m.kube.componentPods = { state: 'ok', value: [] };
      m.kube.server = { state: 'ok', value: { gitVersion: 'v1.30.5' } };
    });
    expect(resultOf(rke, 'version-skew').message).toContain(
      'more than 3 minors behind kube-apiserver v1.30.5',
    );
    const none = snapshotWith((m) => {
      m.kube.componentPods = { state: 'ok', value: [] };
      m.kube.server = { state: 'unavailable', reason: 'forbidden' };
    });
    expect(resultOf(none, 'version-skew').status).toBe('skip');
  });
});
