import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../packages/uproot/src/engine/events.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import { endState, overlapDetail, overlaps, startReliabilityTwin, type ReliabilityTwin } from './harness.js';

/**
 * A journey stopped in the middle of a version step and resumed must end where an uninterrupted journey ends:
 * the migration at 1.27 (its switch changes the version) and one hop to 1.28 on the rke2-intree twin. uproot
 * is lost (its signal aborted, as the kill-and-resume test does) after a step's change reached Rancher and
 * while its gates wait on the roll: in the switch that upgrades, and in the hop.
 */
const TARGET = 'v1.28.15+rke2r1';

/** The migration's end state plus what runs: every kubelet, /version, the control-plane pods' images. */
function journeyState(twin: Twin): Record<string, unknown> {
  const status = twin.status();
  return {
    ...endState(twin),
    apiServerVersion: status.apiServerVersion,
    kubelets: status.versions.kubelets,
    controlPlanePods: status.versions.controlPlanePods,
  };
}

let reference: ReliabilityTwin;
let expected: Record<string, unknown>;

beforeAll(async () => {
  reference = await startReliabilityTwin();
  const result = await reference.migrate({ targetVersion: TARGET });
  expect(result.exitCode, JSON.stringify(result.outcome).slice(0, 600)).toBe(0);
  const verified = await reference.settledVerify();
  expect(verified.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
  expected = journeyState(reference.twin);
}, 180_000);

afterAll(async () => {
  await reference?.close();
});

/** Runs the journey, aborting it at the first event `at` matches; then resumes it to the end. */
async function abortedAndResumed(at: (e: EngineEvent) => boolean): Promise<ReliabilityTwin> {
  const sb = await startReliabilityTwin();
  const abort = new AbortController();
  const first = await sb.migrate(
    { targetVersion: TARGET },
    {
      signal: abort.signal,
      onEvent: (e) => {
        if (!abort.signal.aborted && at(e)) abort.abort(new Error('killed'));
      },
    },
  );
  expect(abort.signal.aborted).toBe(true);
  expect(first.outcome.type === 'ran' && first.outcome.result.type).toBe('interrupted');
  expect(first.exitCode).not.toBe(0);
  const resumed = await sb.migrate({ resume: true });
  expect(resumed.exitCode, JSON.stringify(resumed.outcome).slice(0, 600)).toBe(0);
  expect(resumed.outcome.type === 'ran' && resumed.outcome.result.type).toBe('completed');
  return sb;
}

async function expectSameEnd(sb: ReliabilityTwin): Promise<void> {
  const verified = await sb.settledVerify();
  expect(verified.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
  expect(verified.report.checks.find((c) => c.id === 'kubernetes-version')?.status).toBe('pass');
  expect(journeyState(sb.twin)).toEqual(expected);
  expect(overlaps(sb.twin), overlapDetail(sb.twin)).toEqual({});
}

describe('uproot migrate --target-version on the rke2-intree twin, stopped in a version step and resumed', () => {
  it('the uninterrupted journey ends on 1.28 everywhere, verified, with no overlap', () => {
    const state = expected as {
      apiServerVersion: string;
      kubelets: Record<string, string>;
      controlPlanePods: Record<string, string>;
      kcm: string[];
    };
    expect(state.apiServerVersion).toBe(TARGET);
    expect(new Set(Object.values(state.kubelets))).toEqual(new Set([TARGET]));
    const images = Object.entries(state.controlPlanePods).filter(([p]) => p.startsWith('kube-'));
    expect(images.length).toBeGreaterThan(0);
    for (const [, image] of images) expect(image).toMatch(/:v1\.28\.15-rke2r1$/);
    for (const flags of state.kcm) expect(flags).toBe('--cloud-provider=external');
    const steps = reference.events.flatMap((e) => (e.type === 'step-verified' ? [e.step] : []));
    expect(steps.slice(-3)).toEqual(['verify-provider-ids', 'upgrade-kubernetes-1.28', 'upgrade-ccm-1.28']);
    // The hop's CCM moved after the roll, to the release of 1.28 (decision 0035).
    const ccm = reference.twin.downstream.store.get(
      'apps/v1/daemonsets',
      'kube-system',
      'aws-cloud-controller-manager',
    ) as { spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(ccm.spec.template.spec.containers[0]!.image).toMatch(/:v1\.28\.\d+$/);
    expect(overlaps(reference.twin)).toEqual({});
  });

  it('aborted in upgrade-ccm-1.28 while the CCM DaemonSet rolls: resumed, same end state', async () => {
    const sb = await abortedAndResumed(
      (e) =>
        e.type === 'gate-started' && e.step === 'upgrade-ccm-1.28' && e.gate.type === 'daemonset-rolled-out',
    );
    try {
      await expectSameEnd(sb);
    } finally {
      await sb.close();
    }
  }, 180_000);

  it('aborted in upgrade-kubernetes-1.28 while Rancher rolls the new version: resumed, same end state', async () => {
    const sb = await abortedAndResumed(
      (e) =>
        e.type === 'gate-started' &&
        e.step === 'upgrade-kubernetes-1.28' &&
        e.gate.type === 'cluster-rolled-out',
    );
    try {
      // The edit had reached Rancher before uproot was lost: the resumed run re-applies it (a no-op) and waits.
      expect(sb.events.some((e) => e.type === 'change-done' && e.step === 'upgrade-kubernetes-1.28')).toBe(
        true,
      );
      await expectSameEnd(sb);
    } finally {
      await sb.close();
    }
  }, 180_000);

  it('aborted in upgrade-kubernetes-1.28 once the roll is done, waiting on the version gate: resumed, same end state', async () => {
    const sb = await abortedAndResumed(
      (e) =>
        e.type === 'gate-started' &&
        e.step === 'upgrade-kubernetes-1.28' &&
        e.gate.type === 'kubernetes-version',
    );
    try {
      await expectSameEnd(sb);
    } finally {
      await sb.close();
    }
  }, 180_000);

  it('aborted in the switch that also moves the cluster to 1.27: resumed, same end state', async () => {
    const sb = await abortedAndResumed(
      (e) =>
        e.type === 'gate-started' && e.step === 'switch-to-external' && e.gate.type === 'cluster-rolled-out',
    );
    try {
      const started = sb.events.flatMap((e) => (e.type === 'step-verified' ? [e.step] : []));
      expect(started).toContain('upgrade-kubernetes-1.28');
      await expectSameEnd(sb);
    } finally {
      await sb.close();
    }
  }, 180_000);
});
