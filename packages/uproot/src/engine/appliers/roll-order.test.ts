import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LeaseFacts } from '../gates/gate-facts.js';
import { rollOrder } from './roll-order.js';

const MIGRATION = new Set(['cloud-provider-extraction-migration']);
const lease = (name: string, holderIdentity?: string): LeaseFacts => ({
  namespace: 'kube-system',
  name,
  ...(holderIdentity ? { holderIdentity } : {}),
});
const NODES = ['cp-1', 'cp-2', 'cp-3'];

describe('rollOrder', () => {
  it("puts the node whose manager holds the component's lease last, the others in their order", () => {
    const order = rollOrder(
      NODES,
      'cloud-controller-manager',
      [lease('cloud-controller-manager', 'cp-1_9b1e'), lease('kube-controller-manager', 'cp-3_77aa')],
      MIGRATION,
    );
    expect(order).toEqual({ nodes: ['cp-2', 'cp-3', 'cp-1'], holders: ['cp-1'] });
  });

  it("looks at the component's own lease only (the KCM's leader is the CCM's standby)", () => {
    const leases = [
      lease('cloud-controller-manager', 'cp-1_9b1e'),
      lease('kube-controller-manager', 'cp-3_77aa'),
    ];
    expect(rollOrder(NODES, 'kube-controller-manager', leases, MIGRATION).nodes).toEqual([
      'cp-1',
      'cp-2',
      'cp-3',
    ]);
    expect(rollOrder(['cp-3', 'cp-1', 'cp-2'], 'kube-controller-manager', leases, MIGRATION).nodes).toEqual([
      'cp-1',
      'cp-2',
      'cp-3',
    ]);
  });

  it("puts the migration lease's holder late when it is this manager's, not when it is the other's", () => {
    const leases = [
      lease('cloud-controller-manager', 'cp-3_9b1e'),
      lease('kube-controller-manager', 'cp-1_77aa'),
      lease('cloud-provider-extraction-migration', 'cp-2_c0de'),
    ];
    // cp-2_c0de is neither main lease's holder (a stale identity): it may be this manager's, so it goes late.
    expect(rollOrder(NODES, 'cloud-controller-manager', leases, MIGRATION)).toEqual({
      nodes: ['cp-1', 'cp-2', 'cp-3'],
      holders: ['cp-2', 'cp-3'],
    });
    const heldByKcm = [...leases.slice(0, 2), lease('cloud-provider-extraction-migration', 'cp-1_77aa')];
    expect(rollOrder(NODES, 'cloud-controller-manager', heldByKcm, MIGRATION).holders).toEqual(['cp-3']);
    expect(rollOrder(NODES, 'kube-controller-manager', heldByKcm, MIGRATION)).toEqual({
      nodes: ['cp-2', 'cp-3', 'cp-1'],
      holders: ['cp-1'],
    });
  });

  it('matches a node to a hostname in its first DNS label (ip-10-0-1-5.ec2.internal is host ip-10-0-1-5)', () => {
    const nodes = ['ip-10-0-1-5.ec2.internal', 'ip-10-0-1-6.ec2.internal'];
    const leases = [lease('cloud-controller-manager', 'ip-10-0-1-5_aa11')];
    expect(rollOrder(nodes, 'cloud-controller-manager', leases, MIGRATION).nodes).toEqual([
      'ip-10-0-1-6.ec2.internal',
      'ip-10-0-1-5.ec2.internal',
    ]);
  });

  it('keeps the order when no lease is held (the CCM not installed yet) or its holder is on no node', () => {
    expect(rollOrder(NODES, 'cloud-controller-manager', [], MIGRATION)).toEqual({
      nodes: NODES,
      holders: [],
    });
    expect(
      rollOrder(NODES, 'cloud-controller-manager', [lease('cloud-controller-manager', 'gone_1')], MIGRATION),
    ).toEqual({ nodes: NODES, holders: [] });
  });

  it('is a permutation of the nodes with the main holder last and non-holders first, in their order', () => {
    const nodeNames: fc.Arbitrary<string[]> = fc.uniqueArray(
      fc.constantFrom('cp-1', 'cp-2', 'cp-3', 'cp-4', 'cp-5'),
      {
        minLength: 1,
      },
    );
    const identity = fc.option(
      fc
        .tuple(fc.constantFrom('cp-1', 'cp-2', 'cp-3', 'cp-9'), fc.constantFrom('a', 'b'))
        .map(([h, u]) => `${h}_${u}`),
      { nil: undefined },
    );
    fc.assert(
      fc.property(nodeNames, identity, identity, identity, (nodes, ccm, kcm, migration) => {
        const leases = [
          lease('cloud-controller-manager', ccm),
          lease('kube-controller-manager', kcm),
          lease('cloud-provider-extraction-migration', migration),
        ];
        const order = rollOrder(nodes, 'cloud-controller-manager', leases, MIGRATION);
        expect([...order.nodes].sort()).toEqual([...nodes].sort());
        const mainHost = ccm?.split('_')[0];
        if (mainHost && nodes.includes(mainHost)) expect(order.nodes.at(-1)).toBe(mainHost);
        const rest = order.nodes.slice(0, order.nodes.length - order.holders.length);
        expect(rest).toEqual(nodes.filter((n) => !order.holders.includes(n)));
        expect(order.nodes.slice(rest.length)).toEqual(order.holders);
      }),
    );
  });
});
