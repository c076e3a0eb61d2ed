import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith } from './fixtures/mutable.js';

describe('leader-election', () => {
  it('passes when the managers elect and the lease is fresh', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'leader-election',
      ),
    ).toMatchObject({ status: 'pass' });
  });

  it('fails a manager with --leader-elect=false', () => {
    const s = snapshotWith((m) => okValue(m.kube.componentPods)[1]!.args.push('--leader-elect=false'));
    expect(resultOf(s, 'leader-election')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('1 kube-controller-manager run with --leader-elect=false'),
    });
  });

  it('fails without the lease, and follows --leader-elect-resource-name', () => {
    const none = snapshotWith((m) => (m.kube.leases = { state: 'ok', value: [] }));
    expect(resultOf(none, 'leader-election')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('does not exist'),
    });
    const renamed = snapshotWith((m) =>
      okValue(m.kube.componentPods).forEach((p) => p.args.push('--leader-elect-resource-name=kcm-custom')),
    );
    expect(resultOf(renamed, 'leader-election').message).toContain('kube-system/kcm-custom does not exist');
  });

  it('warns when the lease was not renewed within its duration', () => {
    const s = snapshotWith((m) => (okValue(m.kube.leases)[0]!.renewTime = '2025-12-31T23:58:00.000000Z'));
    expect(resultOf(s, 'leader-election')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('not renewed for 120s'),
    });
  });

  it('skips when leases cannot be read', () => {
    const s = snapshotWith(
      (m) => (m.kube.leases = { state: 'unavailable', reason: 'forbidden: cannot list leases' }),
    );
    expect(resultOf(s, 'leader-election')).toMatchObject({
      status: 'skip',
      reason: 'forbidden: cannot list leases',
    });
  });
});
