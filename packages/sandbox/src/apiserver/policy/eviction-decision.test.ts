import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { checkAndDecrement, planEviction, VIOLATES_BUDGET_MESSAGE } from './eviction-decision.js';

const NOW = '2026-12-02T00:00:00Z';

function pod(phase: string, o: { ready?: boolean; deleting?: boolean } = {}): KubeObject {
  return {
    metadata: {
      name: 'web-1',
      namespace: 'default',
      resourceVersion: '42',
      labels: { app: 'web' },
      ...(o.deleting ? { deletionTimestamp: NOW } : {}),
    },
    status: { phase, conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

function budget(
  name: string,
  status: Record<string, unknown>,
  spec: Record<string, unknown> = {},
): KubeObject {
  return {
    metadata: { name, namespace: 'default', generation: 1 },
    spec: { selector: { matchLabels: { app: 'web' } }, minAvailable: 1, ...spec },
    status: { observedGeneration: 1, ...status },
  };
}

describe('the eviction subresource\u2019s decision (eviction.go)', () => {
  it('deletes terminal, Pending and deleting pods without a budget check', () => {
    const blocking = [budget('web', { disruptionsAllowed: 0 })];
    expect(planEviction(pod('Succeeded'), blocking, undefined)).toEqual({ kind: 'delete' });
    expect(planEviction(pod('Failed'), blocking, undefined)).toEqual({ kind: 'delete' });
    expect(planEviction(pod('Running', { deleting: true }), blocking, undefined)).toEqual({ kind: 'delete' });
    // Pending: shouldEnforceResourceVersion still pins the delete to the pod read.
    expect(planEviction(pod('Pending'), blocking, undefined)).toEqual({
      kind: 'delete',
      resourceVersion: '42',
    });
  });

  it('refuses overlapping budgets, ignores empty selectors and other namespaces', () => {
    expect(planEviction(pod('Running'), [budget('a', {}), budget('b', {})], undefined)).toEqual({
      kind: 'multiple',
    });
    const empty = budget('e', {}, { selector: {} });
    const elsewhere = { ...budget('x', {}), metadata: { name: 'x', namespace: 'other', generation: 1 } };
    expect(planEviction(pod('Running'), [empty, elsewhere], undefined)).toEqual({ kind: 'delete' });
  });

  it('lets an unready pod go when the budget is healthy or AlwaysAllow, else checks the budget', () => {
    const healthy = budget('web', { currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 });
    expect(planEviction(pod('Running', { ready: false }), [healthy], undefined)).toEqual({
      kind: 'delete',
      budget: 'web',
      resourceVersion: '42',
    });
    const short = budget('web', { currentHealthy: 1, desiredHealthy: 2, disruptionsAllowed: 0 });
    expect(planEviction(pod('Running', { ready: false }), [short], undefined).kind).toBe('check');
    const always = budget(
      'web',
      { currentHealthy: 0, desiredHealthy: 2 },
      { unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    );
    expect(planEviction(pod('Running', { ready: false }), [always], undefined).kind).toBe('delete');
    expect(planEviction(pod('Running'), [short], undefined).kind).toBe('check');
  });

  it('answers 429 with the budget\u2019s numbers when no disruption is allowed, and a stale status is still processing', () => {
    const none = checkAndDecrement(
      budget('web', { disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 }),
      'web-1',
      NOW,
      false,
    );
    expect(none).toEqual({
      ok: false,
      code: 429,
      message: VIOLATES_BUDGET_MESSAGE,
      cause: 'The disruption budget web needs 2 healthy pods and has 2 currently',
      retryAfterSeconds: 0,
    });
    const stale = budget('web', { disruptionsAllowed: 3, observedGeneration: 0 });
    expect(checkAndDecrement(stale, 'web-1', NOW, false)).toMatchObject({
      code: 429,
      cause: 'The disruption budget web is still being processed by the server.',
      retryAfterSeconds: 10,
    });
  });

  it('takes exactly one disruption and records the pod, unless dry run', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.boolean(), (allowed, dryRun) => {
        const r = checkAndDecrement(budget('web', { disruptionsAllowed: allowed }), 'web-1', NOW, dryRun);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.status.disruptionsAllowed).toBe(allowed - 1);
        expect(r.status.disruptedPods).toEqual(dryRun ? undefined : { 'web-1': NOW });
        if (allowed === 1)
          expect(r.status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
      }),
    );
  });
});
