import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { withDaemonPodTolerations } from './daemon-pod-tolerations.js';
import { canKeepRunning, canSchedule, type PlacementNode } from './placement.js';
import { toleratesTaint, type Taint, type Toleration } from './taints.js';

/** A Rancher RKE2 machine with the etcd and control-plane roles: both taints, no value. */
const cp = (extra: Partial<PlacementNode['spec']> = {}): PlacementNode => ({
  metadata: { name: 'cp-1', labels: { 'node-role.kubernetes.io/control-plane': 'true' } },
  spec: {
    taints: [
      { key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ],
    ...extra,
  },
});

/** The aws-cloud-controller-manager chart's default tolerations (values.yaml). */
const chartTolerations: Toleration[] = [
  { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
  { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
  { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
];

describe('toleratesTaint', () => {
  it.each<[Toleration, Taint, boolean]>([
    [{ key: 'a', operator: 'Exists' }, { key: 'a', value: 'x', effect: 'NoSchedule' }, true],
    [{ key: 'a', value: 'x' }, { key: 'a', value: 'x', effect: 'NoSchedule' }, true],
    [{ key: 'a', value: 'y' }, { key: 'a', value: 'x', effect: 'NoSchedule' }, false],
    // No operator and no value: Equal against an empty value; a taint with a value is not tolerated.
    [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', value: 'true', effect: 'NoSchedule' }, false],
    [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, true],
    [{ key: 'a', operator: 'Exists', effect: 'NoExecute' }, { key: 'a', effect: 'NoSchedule' }, false],
    [{ operator: 'Exists' }, { key: 'anything', value: 'v', effect: 'NoExecute' }, true],
    [{ key: 'a', operator: 'Bogus' }, { key: 'a', effect: 'NoSchedule' }, false],
  ])('%j vs %j → %s', (toleration, taint, expected) => {
    expect(toleratesTaint(toleration, taint)).toBe(expected);
  });

  it('an Exists toleration with an empty key and effect tolerates every taint', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.constantFrom('NoSchedule', 'NoExecute', 'PreferNoSchedule'),
        (key, value, effect) => toleratesTaint({ operator: 'Exists' }, { key, value, effect }),
      ),
    );
  });
});

describe('canSchedule', () => {
  it('the chart default nodeSelector (control-plane: "") matches no RKE2 node (label value "true")', () => {
    const result = canSchedule(
      { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' }, tolerations: chartTolerations },
      cp(),
    );
    expect(result.fits).toBe(false);
  });

  it("the chart's default tolerations tolerate Rancher's control-plane taint but not its etcd taint", () => {
    // The chart writes no operator for the control-plane toleration: Equal with an empty value, which
    // tolerates Rancher's taint (no value either). Nothing in the chart tolerates the etcd NoExecute taint.
    const select = { nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' } };
    expect(canSchedule({ ...select, tolerations: chartTolerations }, cp())).toEqual({
      fits: false,
      reason: 'node(s) had untolerated taint {node-role.kubernetes.io/etcd: }',
    });
    const etcd: Toleration = { key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' };
    expect(canSchedule({ ...select, tolerations: [...chartTolerations, etcd] }, cp())).toEqual({
      fits: true,
    });
    // Seed 004's `value: 'true'` tolerations match neither of Rancher's valueless taints.
    const seed: Toleration[] = [
      { key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
    ];
    expect(canSchedule({ ...select, tolerations: seed }, cp()).fits).toBe(false);
    // RKE's taints carry "true": the same values fit there.
    const rke: PlacementNode = {
      metadata: { name: 'cp-1', labels: {} },
      spec: {
        taints: [
          { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
          { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
        ],
      },
    };
    expect(
      canSchedule(
        {
          tolerations: [
            { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
            seed[1]!,
          ],
        },
        rke,
      ),
    ).toEqual({ fits: true });
  });

  it('a cordoned node takes a daemon pod but not an ordinary pod', () => {
    const node = cp({
      unschedulable: true,
      taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    });
    expect(canSchedule({}, node)).toEqual({ fits: false, reason: 'node(s) were unschedulable' });
    expect(canSchedule({ tolerations: withDaemonPodTolerations([], true) }, node)).toEqual({ fits: true });
    // The daemon tolerations cover node conditions and the cordon, never the role taints.
    expect(canSchedule({ tolerations: withDaemonPodTolerations([], true) }, cp()).fits).toBe(false);
  });

  it('matchFields metadata.name pins a pod to one node', () => {
    const spec = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['cp-1'] }] },
            ],
          },
        },
      },
    };
    expect(canSchedule(spec, { metadata: { name: 'cp-1' } }).fits).toBe(true);
    expect(canSchedule(spec, { metadata: { name: 'cp-2' } }).fits).toBe(false);
  });

  it('keeps running through NoSchedule taints but not untolerated NoExecute ones', () => {
    const node: PlacementNode = {
      metadata: { name: 'n' },
      spec: { taints: [{ key: 'x', effect: 'NoSchedule' }] },
    };
    expect(canKeepRunning({}, node).fits).toBe(true);
    const evicting: PlacementNode = {
      metadata: { name: 'n' },
      spec: { taints: [{ key: 'x', effect: 'NoExecute' }] },
    };
    expect(canKeepRunning({}, evicting).fits).toBe(false);
    expect(canKeepRunning({ tolerations: [{ key: 'x', operator: 'Exists' }] }, evicting).fits).toBe(true);
    // An empty effect tolerates every effect; an Exists toleration with no key tolerates every taint.
    expect(
      canKeepRunning({ tolerations: [{ key: 'x', operator: 'Exists', effect: '' }] }, evicting).fits,
    ).toBe(true);
    expect(canKeepRunning({ tolerations: [{ operator: 'Exists' }] }, cp()).fits).toBe(true);
    expect(
      canKeepRunning({ tolerations: [{ key: 'x', operator: 'Exists', effect: 'NoSchedule' }] }, evicting)
        .fits,
    ).toBe(false);
  });
});
