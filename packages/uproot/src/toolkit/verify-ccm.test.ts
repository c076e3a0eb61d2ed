import { describe, expect, it } from 'vitest';
import type { ComponentPodFacts, NodeFacts } from '../engine/gates/gate-facts.js';
import { ccmArgProblems, judgeCcmStaticPods } from './verify-ccm.js';

const node = (name: string): NodeFacts => ({ name, labels: {}, unschedulable: false, taints: [] });
const ccm = (nodeName: string, args: string[], phase = 'Running'): ComponentPodFacts => ({
  name: `cloud-controller-manager-${nodeName}`,
  nodeName,
  labels: { component: 'cloud-controller-manager' },
  args: ['aws-cloud-controller-manager', ...args],
  phase,
  ready: phase === 'Running',
});
const cp = [node('cp-1'), node('cp-2')];

describe('ccmArgProblems', () => {
  it('wants --cloud-provider=aws, and no leader migration once it was disabled', () => {
    expect(ccmArgProblems(['--cloud-provider=aws', '--enable-leader-migration'], false)).toEqual([]);
    expect(ccmArgProblems(['--cloud-provider=aws', '--enable-leader-migration'], true)).toEqual([
      '--enable-leader-migration is still set after disable-leader-migration',
    ]);
    expect(ccmArgProblems([], false)).toEqual(['--cloud-provider=(unset) (expected aws)']);
  });
});

describe('judgeCcmStaticPods (kubeadm)', () => {
  it('passes when every control-plane node runs a ready CCM with good flags', () => {
    const r = judgeCcmStaticPods(
      [ccm('cp-1', ['--cloud-provider=aws']), ccm('cp-2', ['--cloud-provider=aws'])],
      cp,
      true,
    );
    expect(r).toMatchObject({ status: 'pass', detail: expect.stringMatching(/all 2 control-plane nodes/) });
  });
  it('names the nodes without a running CCM', () => {
    const r = judgeCcmStaticPods(
      [ccm('cp-1', ['--cloud-provider=aws']), ccm('cp-2', ['--cloud-provider=aws'], 'Pending')],
      cp,
      false,
    );
    expect(r).toMatchObject({ status: 'fail', detail: expect.stringMatching(/cp-2/) });
    expect(judgeCcmStaticPods([], [], false).status).toBe('fail');
  });
  it('names a node still running leader migration after it was disabled', () => {
    const r = judgeCcmStaticPods(
      [
        ccm('cp-1', ['--cloud-provider=aws']),
        ccm('cp-2', ['--cloud-provider=aws', '--enable-leader-migration']),
      ],
      cp,
      true,
    );
    expect(r).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^cp-2: --enable-leader-migration/),
    });
  });
});
