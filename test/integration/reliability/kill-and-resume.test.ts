import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepId } from '../../../packages/uproot/src/core/model/plan-types.js';
import { endState, overlapDetail, overlaps, startReliabilityTwin, type ReliabilityTwin } from './harness.js';

/**
 * Stopping uproot anywhere and resuming it must end exactly where an uninterrupted migration ends. One
 * uninterrupted reference twin; one twin stopped at every step boundary (`--until`, then `--resume --until`
 * the next); one twin aborted through its signal in the middle of switch-to-external.
 */
let reference: ReliabilityTwin;
let expected: Record<string, unknown>;
let steps: StepId[];

beforeAll(async () => {
  reference = await startReliabilityTwin();
  const result = await reference.migrate();
  expect(result.exitCode, JSON.stringify(result.outcome).slice(0, 400)).toBe(0);
  steps = reference.events.flatMap((e) => (e.type === 'step-verified' ? [e.step] : []));
  // Compared once Rancher has finished rolling (settledVerify waits for it), like every run below.
  const verified = await reference.settledVerify();
  expect(verified.report.outcome).toBe('pass');
  expected = endState(reference.twin);
}, 120_000);

afterAll(async () => {
  await reference?.close();
});

describe('uproot migrate on the rke2-intree twin, stopped and resumed', () => {
  it('the uninterrupted reference run reaches the migrated state', () => {
    expect(steps).toContain('switch-to-external');
    const state = expected as {
      nodes: { providerID?: string; uninitialized: boolean }[];
      kcm: string[];
      ccm: { desired: number; ready: number; updated: number };
      loadBalancers: { hostnames: string[] }[];
    };
    expect(state.nodes.length).toBeGreaterThan(0);
    for (const n of state.nodes) {
      expect(n.providerID).toMatch(/^aws:\/\/\/[a-z0-9-]+\/i-[0-9a-f]+$/);
      expect(n.uninitialized).toBe(false);
    }
    expect(state.kcm.length).toBe(reference.twin.scenario.nodes.controlPlane);
    for (const flags of state.kcm) expect(flags).toBe('--cloud-provider=external');
    expect(state.ccm.desired).toBeGreaterThan(0);
    expect(state.ccm.ready).toBe(state.ccm.desired);
    expect(state.ccm.updated).toBe(state.ccm.desired);
    expect(state.loadBalancers.every((lb) => lb.hostnames.length > 0)).toBe(true);
    expect(overlaps(reference.twin)).toEqual({});
  });

  it('stopped at every step boundary with --until, then resumed: same end state, verify passes, no overlap', async () => {
    const sb = await startReliabilityTwin();
    try {
      const lbBefore = (endState(sb.twin) as { loadBalancers: unknown }).loadBalancers;
      for (const [i, step] of steps.entries()) {
        const r = await sb.migrate({ until: step, ...(i > 0 ? { resume: true } : {}) });
        expect(
          r.exitCode,
          `--until ${step}: ${JSON.stringify(r.outcome).slice(0, 1500)} steps=${steps.join(',')} status=${JSON.stringify(sb.twin.status())}`,
        ).toBe(0);
        expect(r.outcome.type).toBe('ran');
        if (r.outcome.type === 'ran' && i < steps.length - 1) {
          expect(r.outcome.result.type, `--until ${step}`).toBe('stopped');
        }
      }
      const again = await sb.migrate({ resume: true });
      expect(again.outcome.type).toBe('already-completed');
      const verified = await sb.settledVerify();
      expect(verified.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(verified.exitCode).toBe(0);
      expect(endState(sb.twin)).toEqual(expected);
      expect((endState(sb.twin) as { loadBalancers: unknown }).loadBalancers).toEqual(lbBefore);
      expect(overlaps(sb.twin), overlapDetail(sb.twin)).toEqual({});
    } finally {
      await sb.close();
    }
  }, 150_000);

  it('aborted in the middle of switch-to-external, then resumed: same end state, verify passes, no overlap', async () => {
    const sb = await startReliabilityTwin();
    try {
      const abort = new AbortController();
      const first = await sb.migrate(
        {},
        {
          signal: abort.signal,
          onEvent: (e) => {
            // The change is applied and its gate is waiting on the rollout: the worst moment to lose uproot.
            if (e.type === 'gate-started' && e.step === 'switch-to-external')
              abort.abort(new Error('killed'));
          },
        },
      );
      expect(first.outcome.type).toBe('ran');
      if (first.outcome.type === 'ran') expect(first.outcome.result.type).toBe('interrupted');
      expect(first.exitCode).not.toBe(0);
      const stopped = sb.events.filter((e) => e.type === 'step-verified').map((e) => e.step);
      expect(stopped).not.toContain('switch-to-external');

      const resumed = await sb.migrate({ resume: true });
      expect(resumed.exitCode, JSON.stringify(resumed.outcome).slice(0, 400)).toBe(0);
      const verified = await sb.settledVerify();
      expect(verified.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(endState(sb.twin)).toEqual(expected);
      expect(overlaps(sb.twin), overlapDetail(sb.twin)).toEqual({});
    } finally {
      await sb.close();
    }
  }, 150_000);
});
