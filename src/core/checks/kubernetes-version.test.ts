import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith } from './fixtures/mutable.js';

const at = (gitVersion: string) =>
  snapshotWith((s) => {
    s.kube.server = { state: 'ok', value: { gitVersion } };
  });

describe('kubernetes-version', () => {
  it.each([
    ['v1.26.15+rke2r1', undefined, 'pass', /GA; migrate as part of the 1.26 → 1.27 upgrade/],
    ['v1.22.17', undefined, 'pass', /beta, default configuration/],
    ['v1.21.14', undefined, 'warn', /alpha; it needs the ControllerManagerLeaderMigration feature gate/],
    ['v1.20.15', undefined, 'fail', /predates leader migration/],
    ['v1.27.3', undefined, 'pass', /has no in-tree AWS provider/],
    ['v1.26.15', '1.27', 'pass', /migrate as part of the upgrade to 1.27/],
    ['v1.26.15', '1.26', 'pass', /migrate at 1.26 without upgrading, then upgrade to 1.27/],
    ['v1.26.15', '1.29', 'fail', /past 1.27, which removes the in-tree AWS provider/],
    ['v1.25.16', '1.27', 'fail', /2 minors ahead/],
    ['v1.26.15', '1.25', 'fail', /older than the cluster/],
  ] as const)('%s with target %s: %s', (version, target, status, message) => {
    const r = resultOf(at(version), 'kubernetes-version', target ? { targetVersion: target } : {});
    expect(r.status).toBe(status);
    expect(r.message).toMatch(message);
  });

  it('falls back to the oldest kubelet when the server version is unreadable', () => {
    const s = snapshotWith((m) => {
      m.kube.server = { state: 'unavailable', reason: 'forbidden' };
      okValue(m.kube.nodes)[0]!.kubeletVersion = 'v1.25.3+rke2r1';
    });
    expect(resultOf(s, 'kubernetes-version').message).toContain('Kubernetes v1.25.3+rke2r1');
  });

  it('skips without any version', () => {
    const s = snapshotWith((m) => {
      m.kube.server = { state: 'unavailable', reason: 'forbidden: cannot get version' };
      m.kube.nodes = { state: 'ok', value: [] };
    });
    expect(resultOf(s, 'kubernetes-version')).toMatchObject({
      status: 'skip',
      reason: 'forbidden: cannot get version',
    });
  });

  it('names the step-by-step path in the fix for a target past 1.27', () => {
    const r = resultOf(at('v1.26.15'), 'kubernetes-version', { targetVersion: '1.29' });
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'manual',
      description: expect.stringContaining('--target-version 1.27'),
      steps: ['upgrade to 1.27', 'upgrade to 1.28', 'upgrade to 1.29'],
    });
  });
});
