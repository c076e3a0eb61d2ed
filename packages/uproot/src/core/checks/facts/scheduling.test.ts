import { describe, expect, it } from 'vitest';
import { placementOnNode, toleratesTaint } from './scheduling.js';
import { formatToleration } from '../../scheduling/index.js';
import type { NodeFacts } from '../../model/snapshot.js';
import type { Taint, Toleration } from '../../model/taint.js';

const taint: Taint = { key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' };

describe('toleratesTaint (core/v1 ToleratesTaint)', () => {
  it.each<[Toleration, boolean]>([
    [{ key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' }, true],
    [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Equal', value: 'true' }, true],
    [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }, false],
    [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }, true],
    [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoExecute' }, false],
    [{ operator: 'Exists' }, true],
    [{ key: 'node-role.kubernetes.io/master', operator: 'Exists' }, false],
    [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Bogus' }, false],
  ])('%j tolerates control-plane=true:NoSchedule: %s', (toleration, expected) => {
    expect(toleratesTaint(toleration, taint)).toBe(expected);
  });
});

describe('placementOnNode', () => {
  const node: NodeFacts = {
    name: 'cp-1',
    labels: { 'node-role.kubernetes.io/control-plane': 'true' },
    annotations: {},
    taints: [taint, { key: 'example.com/soft', effect: 'PreferNoSchedule' }],
    kubeletVersion: 'v1.26.15',
    internalIPs: [],
    unschedulable: true,
  };

  it('reports selector mismatches and untolerated blocking taints (cordoning adds one)', () => {
    expect(
      placementOnNode(
        { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' }, tolerations: [] },
        node,
      ),
    ).toEqual({
      fits: false,
      selectorMismatch: ['node-role.kubernetes.io/control-plane=""'],
      untolerated: [taint, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    });
  });

  it('fits when the selector matches and blocking taints are tolerated (PreferNoSchedule never blocks)', () => {
    expect(
      placementOnNode(
        {
          nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
          tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
        },
        node,
      ),
    ).toEqual({ fits: true });
  });
});

describe('formatToleration', () => {
  it('writes one line of YAML flow style, quoting what YAML would read as another type', () => {
    expect(
      formatToleration({ key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' }),
    ).toBe('{key: node-role.kubernetes.io/etcd, operator: Exists, effect: NoExecute}');
    expect(formatToleration({ key: 'a', value: 'true', effect: 'NoSchedule' })).toBe(
      '{key: a, value: "true", effect: NoSchedule}',
    );
    expect(formatToleration({ operator: 'Exists' })).toBe('{operator: Exists}');
  });
});
