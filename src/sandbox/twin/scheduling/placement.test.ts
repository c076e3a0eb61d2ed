import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { withDaemonPodTolerations } from './daemon-pod-tolerations.js';
import { canKeepRunning, canSchedule, type PlacementNode } from './placement.js';
import { toleratesTaint, type Taint, type Toleration } from './taints.js';

const cp = (extra: Partial<PlacementNode['spec']> = {}): PlacementNode => ({
  metadata: { name: 'cp-1', labels: { 'node-role.kubernetes.io/control-plane': 'true' } },
  spec: {
    taints: [{ key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' }],
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

  it('the chart default tolerations tolerate the RKE2 control-plane=true:NoSchedule taint (operator Exists by key)', () => {
    // The chart writes no operator for the control-plane toleration, so it is Equal with an empty value: it
    // only tolerates a taint without a value. RKE2's taint has value "true".
    const result = canSchedule(
      { nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' }, tolerations: chartTolerations },
      cp(),
    );
    expect(result).toEqual({
      fits: false,
      reason: 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane=true:NoSchedule}',
    });
  });

  it('a cordoned node takes a daemon pod but not an ordinary pod', () => {
    const node = cp({
      unschedulable: true,
      taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    });
    expect(canSchedule({}, node)).toEqual({ fits: false, reason: 'node(s) were unschedulable' });
    expect(canSchedule({ tolerations: withDaemonPodTolerations([], true) }, node)).toEqual({ fits: true });
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
  });
});
