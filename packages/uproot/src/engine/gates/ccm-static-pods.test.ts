import { describe, expect, it } from 'vitest';
import { evaluateCcmStaticPods } from './ccm-static-pods.js';
import type { ComponentPodFacts, NodeFacts } from './gate-facts.js';

const node = (name: string): NodeFacts => ({ name, labels: {}, unschedulable: false, taints: [] });
const ccm = (nodeName: string, o: Partial<ComponentPodFacts> = {}): ComponentPodFacts => ({
  name: `cloud-controller-manager-${nodeName}`,
  nodeName,
  labels: {},
  args: ['cloud-controller-manager', '--cloud-provider=aws'],
  phase: 'Running',
  ready: true,
  image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.28.11',
  ...o,
});
const cps = [node('cp1'), node('cp2')];
const judge = (pods: ComponentPodFacts[], expect: Parameters<typeof evaluateCcmStaticPods>[2]) =>
  evaluateCcmStaticPods(cps, pods, expect, 'node-role.kubernetes.io/control-plane');

describe('ccm-static-pods', () => {
  it('passes when every control-plane node runs the manifest’s tag, Running and Ready', () => {
    const v = judge([ccm('cp1'), ccm('cp2')], { imageTag: 'v1.28.11' });
    expect(v).toEqual({
      type: 'pass',
      detail: 'the cloud-controller-manager v1.28.11 runs on all 2 control-plane nodes',
    });
  });

  it('waits while a node still runs the pod of the previous manifest (the kubelet has not restarted it)', () => {
    const old = 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.27.7';
    const v = judge([ccm('cp1'), ccm('cp2', { image: old })], { imageTag: 'v1.28.11' });
    expect(v.type).toBe('wait');
    expect(v.type === 'wait' && v.reason).toBe(
      `the cloud-controller-manager pod does not yet run its new manifest on 1 of 2 control-plane nodes: cp2 (image ${old} (expected tag v1.28.11))`,
    );
  });

  it('waits for the leader-migration flag the manifest sets or removes', () => {
    const migrating = ccm('cp1', { args: ['--cloud-provider=aws', '--enable-leader-migration'] });
    expect(judge([migrating, ccm('cp2')], { leaderMigration: false })).toMatchObject({
      type: 'wait',
      reason: expect.stringContaining('cp1 (leader migration still enabled)'),
    });
    expect(judge([migrating, ccm('cp2')], { leaderMigration: true })).toMatchObject({
      type: 'wait',
      reason: expect.stringContaining('cp2 (leader migration not enabled)'),
    });
  });

  it('waits for a missing mirror pod, then for one that is not yet Running and Ready', () => {
    expect(judge([ccm('cp1')], {})).toMatchObject({
      type: 'wait',
      reason: 'no cloud-controller-manager pod on 1 of 2 control-plane nodes: cp2',
    });
    expect(judge([ccm('cp1'), ccm('cp2', { phase: 'Pending' })], {})).toMatchObject({
      type: 'wait',
      reason: 'the cloud-controller-manager is not running and ready on cp2 (Pending)',
    });
    expect(judge([ccm('cp1'), ccm('cp2', { ready: false })], {}).type).toBe('wait');
  });

  it('finds a pod by its mirror name when it carries no node name, and waits with no control-plane node', () => {
    const { nodeName: _, ...unnamed } = ccm('cp2');
    expect(judge([ccm('cp1'), unnamed], {}).type).toBe('pass');
    expect(evaluateCcmStaticPods([], [], {}, 'sel')).toMatchObject({
      type: 'wait',
      reason: 'no control-plane node matches sel',
    });
  });

  it('does not take a CCM without --cloud-provider=aws for the one uproot wrote', () => {
    const v = judge([ccm('cp1'), ccm('cp2', { args: ['cloud-controller-manager'] })], {});
    expect(v.type === 'wait' && v.reason).toContain('cp2 (--cloud-provider=(unset) (expected aws))');
  });
});
