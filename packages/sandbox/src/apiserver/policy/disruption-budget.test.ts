import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import {
  DELETION_TIMEOUT_MS,
  countHealthy,
  disruptionsAllowed,
  expectedPodCount,
  liveDisruptedPods,
  scaledValue,
  type ScaleLookup,
} from './disruption-budget.js';

const T0 = Date.parse('2026-12-02T00:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

function pod(name: string, o: { ready?: boolean; deleting?: boolean; owner?: string } = {}): KubeObject {
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'web' },
      ...(o.deleting ? { deletionTimestamp: iso(T0) } : {}),
      ...(o.owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: o.owner,
                uid: `uid-${o.owner}`,
                controller: true,
              },
            ],
          }
        : {}),
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

const pdb = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: 'web', namespace: 'default', generation: 1 },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
});

const scales =
  (replicas: Record<string, number>) =>
  (ref: { name: string; uid: string }): ScaleLookup =>
    replicas[ref.name] === undefined
      ? { kind: 'none' }
      : { kind: 'found', uid: ref.uid, scale: replicas[ref.name]! };

describe('PodDisruptionBudget arithmetic (disruption.go, intstr)', () => {
  it('scales a percentage of the total, rounding up or down, and takes integers as given', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 5000 }), (pct, total) => {
        const up = scaledValue(`${pct}%`, total, true);
        const down = scaledValue(`${pct}%`, total, false);
        expect(up).toEqual({ ok: true, value: Math.ceil((pct * total) / 100) });
        expect(down).toEqual({ ok: true, value: Math.floor((pct * total) / 100) });
        if (up.ok && down.ok) expect(up.value - down.value).toBeLessThanOrEqual(1);
        expect(scaledValue(pct, total, true)).toEqual({ ok: true, value: pct });
      }),
    );
    expect(scaledValue('50', 4, true)).toEqual({
      ok: false,
      error: 'invalid value for IntOrString: invalid type: string is not a percentage',
    });
  });

  it('never allows a negative number of disruptions, and none while nothing is expected', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.nat(50), (healthy, desired, expected) => {
        const allowed = disruptionsAllowed(healthy, desired, expected);
        expect(allowed).toBeGreaterThanOrEqual(0);
        expect(allowed).toBe(expected === 0 ? 0 : Math.max(0, healthy - desired));
      }),
    );
  });

  it('an integer minAvailable counts the matching pods; a percentage the controllers\u2019 scale, rounded up', () => {
    const pods = [pod('a', { owner: 'd' }), pod('b', { owner: 'd' }), pod('c', { owner: 'd' })];
    expect(expectedPodCount(pdb({ minAvailable: 2 }), pods, scales({}))).toEqual({
      ok: true,
      expected: 3,
      desired: 2,
      unmanaged: [],
    });
    // 5 replicas wanted, 3 pods exist: 50% of 5 rounded up is 3.
    expect(expectedPodCount(pdb({ minAvailable: '50%' }), pods, scales({ d: 5 }))).toMatchObject({
      expected: 5,
      desired: 3,
    });
    // maxUnavailable 30% of 5, rounded up, is 2: desiredHealthy 3.
    expect(expectedPodCount(pdb({ maxUnavailable: '30%' }), pods, scales({ d: 5 }))).toMatchObject({
      expected: 5,
      desired: 3,
    });
    expect(expectedPodCount(pdb({ maxUnavailable: 9 }), pods, scales({ d: 5 }))).toMatchObject({
      desired: 0,
    });
    expect(expectedPodCount(pdb({ maxUnavailable: 1 }), pods, scales({}))).toEqual({
      ok: false,
      error: 'found no controllers for pod "a"',
    });
    expect(expectedPodCount(pdb({ maxUnavailable: 1 }), [pod('x')], scales({}))).toMatchObject({
      expected: 0,
      unmanaged: ['x'],
    });
  });

  it('desiredHealthy under maxUnavailable is the scale less the rounded-up share, at least 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 100 }), (replicas, pct) => {
        const r = expectedPodCount(
          pdb({ maxUnavailable: `${pct}%` }),
          [pod('a', { owner: 'd' })],
          scales({ d: replicas }),
        );
        expect(r).toMatchObject({
          ok: true,
          expected: replicas,
          desired: replicas - Math.ceil((pct * replicas) / 100),
        });
      }),
    );
  });

  it('counts Ready pods not being deleted and not recently evicted', () => {
    const pods = [pod('a'), pod('b', { ready: false }), pod('c', { deleting: true }), pod('d'), pod('e')];
    const disrupted = { d: iso(T0 - 1000), e: iso(T0 - DELETION_TIMEOUT_MS - 1000) };
    expect(countHealthy(pods, disrupted, T0)).toBe(2); // a, and e whose eviction expired
    const live = liveDisruptedPods(disrupted, pods, T0);
    expect(live.pods).toEqual({ d: iso(T0 - 1000) });
    expect(live.recheckAt).toBe(T0 - 1000 + DELETION_TIMEOUT_MS);
  });
});
