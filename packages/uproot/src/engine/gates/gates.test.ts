import { describe, expect, it } from 'vitest';
import { evaluateClusterRolledOut } from './cluster-rollout.js';
import { distroFacts } from '../../core/distros/distro-facts.js';
import { RKE_FLAGS_SKIPPED } from '../../core/distros/rke/rke-facts.js';
import { evaluateControlPlaneFlags } from './control-plane-flags.js';
import { evaluateDaemonSetRollout } from './daemonset-rollout.js';
import type { ComponentPodFacts, DaemonSetFacts, LeaseFacts, NodeFacts } from './gate-facts.js';
import { evaluateMigrationLeaseHeld } from './lease-holder.js';
import { evaluateLoadBalancersKept } from './load-balancers.js';
import { evaluateNodesCordoned, evaluateNodesInitialized, UNINITIALIZED_TAINT } from './node-gates.js';
import { evaluateNoOwnershipOverlap } from './ownership.js';
import { evaluateRbacAllows, splitResource } from './access.js';

const ds = (o: Partial<DaemonSetFacts>): DaemonSetFacts => ({
  namespace: 'kube-system',
  name: 'aws-cloud-controller-manager',
  generation: 2,
  observedGeneration: 2,
  updateStrategyType: 'RollingUpdate',
  desiredNumberScheduled: 3,
  updatedNumberScheduled: 3,
  numberAvailable: 3,
  ...o,
});
const ref = { namespace: 'kube-system', name: 'aws-cloud-controller-manager' };

describe('daemonset-rolled-out (kubectl rollout status conditions)', () => {
  it.each([
    [undefined, 'wait', /does not exist/],
    [ds({ updateStrategyType: 'OnDelete' }), 'fail', /only available for the RollingUpdate/],
    [ds({ generation: 3 }), 'wait', /spec update to be observed/],
    [ds({ updatedNumberScheduled: 1 }), 'wait', /1 out of 3 new pods have been updated/],
    [ds({ numberAvailable: 2 }), 'wait', /2 of 3 updated pods are available/],
    [ds({}), 'pass', /successfully rolled out/],
    [ds({ desiredNumberScheduled: 0, updatedNumberScheduled: 0, numberAvailable: 0 }), 'pass', /rolled out/],
  ] as const)('%#: %j → %s', (facts, type, text) => {
    const v = evaluateDaemonSetRollout(facts, ref);
    expect(v.type).toBe(type);
    expect(v.type === 'pass' ? v.detail : v.reason).toMatch(text);
  });
});

const node = (name: string, o: Partial<NodeFacts> = {}): NodeFacts => ({
  name,
  labels: {},
  unschedulable: false,
  providerID: `aws:///us-east-1a/i-${name}`,
  taints: [],
  ...o,
});

describe('node gates', () => {
  it('waits until every selected node is cordoned', () => {
    expect(evaluateNodesCordoned([node('a', { unschedulable: true }), node('b')], 'x').type).toBe('wait');
    expect(evaluateNodesCordoned([], 'x').type).toBe('wait');
    expect(evaluateNodesCordoned([node('a', { unschedulable: true })], 'x').type).toBe('pass');
  });
  it('wants a providerID and no uninitialized taint on every node', () => {
    const noId = node('a', { providerID: undefined });
    const tainted = node('b', {
      taints: [{ key: UNINITIALIZED_TAINT, effect: 'NoSchedule', value: 'true' }],
    });
    expect(evaluateNodesInitialized([noId, node('c')])).toMatchObject({
      type: 'wait',
      reason: /1 of 2 nodes have no spec.providerID: a/,
    });
    expect(evaluateNodesInitialized([tainted])).toMatchObject({
      type: 'wait',
      reason: /uninitialized taint: b/,
    });
    expect(evaluateNodesInitialized([node('c')]).type).toBe('pass');
  });
  it('keeps a 5,000-node reason short', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => node(`n${i}`, { providerID: undefined }));
    const v = evaluateNodesInitialized(nodes);
    expect(v.type === 'wait' && v.reason.length).toBeLessThan(200);
  });
});

const now = Date.UTC(2026, 0, 1, 12);
const lease = (name: string, holder: string | undefined, ageSeconds = 1): LeaseFacts => ({
  namespace: 'kube-system',
  name,
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  renewTime: new Date(now - ageSeconds * 1000).toISOString(),
});

describe('migration-lease-held', () => {
  const gate = { leaseName: 'cloud-provider-extraction-migration', by: 'cloud-controller-manager' } as const;
  it.each([
    [[lease('kube-controller-manager', 'cp1_a')], 'wait', /has no holder yet/],
    [
      [lease(gate.leaseName, 'cp1_a'), lease('kube-controller-manager', 'cp1_a')],
      'wait',
      /main lease .* has no holder/,
    ],
    [
      [
        lease(gate.leaseName, 'cp1_a'),
        lease('kube-controller-manager', 'cp1_a'),
        lease('cloud-controller-manager', 'cp2_b'),
      ],
      'wait',
      /held by cp1_a \(kube-controller-manager\), not by cloud-controller-manager's leader cp2_b/,
    ],
    [
      [lease(gate.leaseName, 'cp2_b', 60), lease('cloud-controller-manager', 'cp2_b')],
      'wait',
      /last renewed 60s ago/,
    ],
    [
      [lease(gate.leaseName, 'cp2_b', 3), lease('cloud-controller-manager', 'cp2_b')],
      'pass',
      /held by cloud-controller-manager \(cp2_b\), renewed 3s ago/,
    ],
  ] as const)('%#', (leases, type, text) => {
    const v = evaluateMigrationLeaseHeld(leases, gate, now);
    expect(v.type).toBe(type);
    expect(v.type === 'pass' ? v.detail : v.reason).toMatch(text);
  });
});

const pod = (nodeName: string, args: string[], o: Partial<ComponentPodFacts> = {}): ComponentPodFacts => ({
  name: `kube-controller-manager-${nodeName}`,
  nodeName,
  labels: { component: 'kube-controller-manager' },
  args: ['kube-controller-manager', ...args],
  phase: 'Running',
  ready: true,
  ...o,
});

describe('control-plane-flags', () => {
  const expectMigration = { cloudProvider: 'aws', kcmLeaderMigration: true } as const;
  const cps = [node('cp1'), node('cp2')];
  it('passes when every control-plane KCM has the planned flags', () => {
    const pods = [
      pod('cp1', ['--cloud-provider=aws', '--enable-leader-migration']),
      pod('cp2', ['--cloud-provider', 'aws', '--enable-leader-migration=true']),
    ];
    expect(evaluateControlPlaneFlags(distroFacts('kubeadm'), cps, pods, expectMigration, 's').type).toBe(
      'pass',
    );
  });
  it('names the node whose KCM still runs the old flags', () => {
    const pods = [
      pod('cp1', ['--cloud-provider=aws', '--enable-leader-migration']),
      pod('cp2', ['--cloud-provider=aws']),
    ];
    const v = evaluateControlPlaneFlags(distroFacts('rke2'), cps, pods, expectMigration, 's');
    expect(v).toMatchObject({
      type: 'wait',
      reason: /1 of 2 control-plane nodes: cp2 \(leader migration not enabled\)/,
    });
  });
  it('waits for a missing or crashing pod', () => {
    expect(
      evaluateControlPlaneFlags(
        distroFacts('kubeadm'),
        cps,
        [pod('cp1', ['--cloud-provider=aws', '--enable-leader-migration'])],
        expectMigration,
        's',
      ),
    ).toMatchObject({ type: 'wait', reason: /no kube-controller-manager pod found on 1/ });
    const crashing = [
      pod('cp1', ['--cloud-provider=aws', '--enable-leader-migration']),
      pod('cp2', ['--cloud-provider=aws', '--enable-leader-migration'], { phase: 'Running', ready: false }),
    ];
    expect(
      evaluateControlPlaneFlags(distroFacts('kubeadm'), cps, crashing, expectMigration, 's'),
    ).toMatchObject({
      type: 'wait',
      reason: /not running and ready on cp2/,
    });
  });
  it('expects external without migration after the switch', () => {
    const pods = [
      pod('cp1', ['--cloud-provider=external']),
      pod('cp2', ['--cloud-provider=external', '--enable-leader-migration']),
    ];
    const v = evaluateControlPlaneFlags(
      distroFacts('kubeadm'),
      cps,
      pods,
      { cloudProvider: 'external', kcmLeaderMigration: false },
      's',
    );
    expect(v).toMatchObject({ type: 'wait', reason: /cp2 \(leader migration enabled\)/ });
  });
  it('skips RKE with the reason', () => {
    expect(evaluateControlPlaneFlags(distroFacts('rke'), [], [], expectMigration, 's')).toEqual({
      type: 'pass',
      detail: RKE_FLAGS_SKIPPED,
    });
  });
});

describe('cluster-rolled-out', () => {
  const ready = [
    { type: 'Ready', status: 'True' },
    { type: 'Provisioned', status: 'True' },
    { type: 'Updated', status: 'True' },
  ];
  it.each([
    [{ generation: 5, observedGeneration: 4, conditions: ready }, 'wait', /not observed the change yet/],
    [
      {
        generation: 5,
        observedGeneration: 5,
        conditions: [{ type: 'Updated', status: 'False', message: 'configuring control plane node(s) cp1' }],
      },
      'wait',
      /Updated is False: configuring/,
    ],
    [
      {
        generation: 5,
        observedGeneration: 5,
        conditions: [...ready, { type: 'Stalled', status: 'True', message: 'plan failed' }],
      },
      'wait',
      /stalled: plan failed/,
    ],
    [{ generation: 5, observedGeneration: 5, ready: false, conditions: ready }, 'wait', /ready is false/],
    [{ generation: 5, observedGeneration: 5, ready: true, conditions: ready }, 'pass', /generation 5/],
  ] as const)('%#', (facts, type, text) => {
    const v = evaluateClusterRolledOut(distroFacts('rke2'), facts, 'prod');
    expect(v.type).toBe(type);
    expect(v.type === 'pass' ? v.detail : v.reason).toMatch(text);
  });
});

describe('load-balancers-kept', () => {
  const baseline = [{ namespace: 'web', name: 'front', hostnames: ['a.elb.amazonaws.com'], ips: [] }];
  const svc = (hostnames: string[]) => ({
    namespace: 'web',
    name: 'front',
    type: 'LoadBalancer',
    hostnames,
    ips: [],
  });
  it('passes when the hostname is the same, waits when empty, fails when replaced', () => {
    expect(evaluateLoadBalancersKept(baseline, [svc(['a.elb.amazonaws.com'])]).type).toBe('pass');
    expect(evaluateLoadBalancersKept(baseline, [svc([])]).type).toBe('wait');
    expect(evaluateLoadBalancersKept(baseline, [svc(['b.elb.amazonaws.com'])])).toMatchObject({
      type: 'fail',
      reason: /web\/front: a.elb.amazonaws.com → b.elb.amazonaws.com/,
    });
    expect(evaluateLoadBalancersKept(baseline, []).type).toBe('pass');
  });
});

describe('no-ownership-overlap', () => {
  const obs = (holder: string, acquireTime: string, renewTime: string) => ({
    namespace: 'kube-system',
    name: 'm',
    holder,
    observedAt: renewTime,
    acquireTime,
    renewTime,
  });
  it('flags a new holder that acquired before the previous holder last renewed', () => {
    const clean = [
      obs('kcm_1', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z'),
      obs('ccm_2', '2026-01-01T00:01:20Z', '2026-01-01T00:01:20Z'),
    ];
    expect(evaluateNoOwnershipOverlap(clean).type).toBe('pass');
    const overlap = [
      obs('kcm_1', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z'),
      obs('ccm_2', '2026-01-01T00:00:50Z', '2026-01-01T00:01:05Z'),
    ];
    expect(evaluateNoOwnershipOverlap(overlap)).toMatchObject({
      type: 'fail',
      reason: /ccm_2 acquired kube-system\/m/,
    });
  });
  it('uses an injected inference', () => {
    expect(
      evaluateNoOwnershipOverlap([], () => [{ lease: 'x', description: 'service ran twice' }]),
    ).toMatchObject({ type: 'fail', reason: /service ran twice/ });
  });
});

describe('rbac-allows', () => {
  it('splits resource and group', () => {
    expect(splitResource('leases')).toEqual({ resource: 'leases', group: 'coordination.k8s.io' });
    expect(splitResource('clusters.provisioning.cattle.io')).toEqual({
      resource: 'clusters',
      group: 'provisioning.cattle.io',
    });
  });
  it('names the denied verbs', () => {
    const gate = {
      user: 'system:kube-controller-manager',
      resource: 'leases',
      namespace: 'kube-system',
      resourceName: 'm',
    };
    expect(
      evaluateRbacAllows(gate, [
        { verb: 'get', answer: { allowed: true } },
        { verb: 'update', answer: { allowed: false } },
      ]),
    ).toMatchObject({ type: 'wait', reason: /may not update leases kube-system\/m/ });
    expect(evaluateRbacAllows(gate, [{ verb: 'get', answer: { allowed: true } }]).type).toBe('pass');
  });
});
