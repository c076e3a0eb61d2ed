import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import { appendLeaseLooks, type LeaseRecord } from '../../core/ownership/index.js';
import { at, CCM, T0 } from '../../core/ownership/ownership-test-support.js';
import { plan } from '../testing/plan-fixtures.js';
import { startLeasePoller } from './lease-poller.js';
import { evaluatePromiseKept } from './promise-kept.js';

function held(holder: string, acquire: number, lastRenew: number): LeaseRecord {
  return {
    namespace: 'kube-system',
    name: CCM,
    holder,
    observedAt: at(acquire + 0.5),
    acquireTime: at(acquire),
    renewTime: at(acquire),
    lastRenewTime: at(lastRenew),
    leaseDurationSeconds: 15,
  };
}

const history = {
  plan: plan([]),
  steps: [{ id: 'install-ccm' as const, state: 'verifying' as const, startedAt: at(90), gates: [] }],
};

describe('promise-kept judges the step\u2019s lease observations', () => {
  it('fails at once naming the controller, the figure, the bound and the step', () => {
    const verdict = evaluatePromiseKept({
      timeline: [held('cp1_a', 0, 100), held('cp2_b', 148, 200)],
      evidence: { now: T0 + 200_000, history },
      step: 'install-ccm',
    });
    expect(verdict.type).toBe('fail');
    if (verdict.type !== 'fail') return;
    expect(verdict.reason).toContain('during step install-ccm');
    expect(verdict.reason).toContain('service had no leader for 47 s');
    expect(verdict.reason).toContain('past its bound of 20 s (lease duration 15 s + retry period 2 s + 3 s');
    expect(verdict.fix).toContain('uproot migrate --resume --accept-gap');
  });

  it('passes a handover within the bound, with the largest gap in its detail', () => {
    const verdict = evaluatePromiseKept({
      timeline: [held('cp1_a', 0, 100), held('cp2_b', 117, 200)],
      evidence: { now: T0 + 200_000, history },
      step: 'install-ccm',
    });
    expect(verdict).toMatchObject({ type: 'pass' });
    expect(verdict.type === 'pass' && verdict.detail).toContain('largest gap 16 s (bound 20 s)');
  });

  it('does not judge a breach from before the step began', () => {
    const verdict = evaluatePromiseKept({
      timeline: [held('cp1_a', 0, 30), held('cp2_b', 80, 200)],
      evidence: { now: T0 + 200_000, history },
      step: 'install-ccm',
    });
    expect(verdict.type).toBe('pass');
  });

  it('says there is nothing to judge when no controller held a lease yet, not a bound of 0 s', () => {
    const verdict = evaluatePromiseKept({
      timeline: [held('', 95, 95)],
      evidence: { now: T0 + 100_000, history },
      step: 'install-ccm',
    });
    expect(verdict.type).toBe('pass');
    expect(verdict.type === 'pass' && verdict.detail).toMatch(
      /^(nothing to judge during step install-ccm|no lease observations)/,
    );
    expect(verdict.type === 'pass' && verdict.detail).not.toContain('bound 0 s');
  });

  it('lets an acknowledged breach pass (--accept-gap), saying so', () => {
    const verdict = evaluatePromiseKept({
      timeline: [held('cp1_a', 0, 100), held('cp2_b', 148, 200)],
      evidence: { now: T0 + 200_000, history },
      step: 'install-ccm',
      acceptedUntil: T0 + 190_000,
    });
    expect(verdict.type === 'pass' && verdict.detail).toMatch(/[1-9]\d* earlier breach\(es\) accepted/);
  });
});

describe('the lease poller', () => {
  it('looks every second and hands over each holding once, with its latest renewal', async () => {
    const clock = new VirtualClock(T0);
    let renew = T0;
    const reader = {
      leases: async () => [
        {
          namespace: 'kube-system',
          name: CCM,
          holderIdentity: 'cp1_a',
          acquireTime: new Date(T0).toISOString(),
          renewTime: new Date(renew).toISOString(),
          leaseDurationSeconds: 15,
        },
      ],
    };
    const poller = startLeasePoller({ reader, clock, watched: new Set([CCM]) });
    for (let i = 0; i < 5; i++) {
      renew = clock.now();
      await clock.advanceBy(1_000);
    }
    const drained = poller.drain();
    await poller.stop();
    expect(drained).toHaveLength(1);
    expect(drained[0]).toMatchObject({ holder: 'cp1_a', lastRenewTime: new Date(T0 + 4_000).toISOString() });
    expect(appendLeaseLooks([], drained).timeline).toEqual(drained);
    expect(poller.drain()).toEqual([]);
  });
});
