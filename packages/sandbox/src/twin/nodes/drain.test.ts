import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { R } from '../kube/twin-kube.js';
import { testKube } from '../test-support/test-store.js';
import { DisruptionController } from '../scheduling/disruption-controller.js';
import { EventRecorder } from '../events/event-recorder.js';
import { seededRandom, VirtualClock } from 'uproot';
import { drainNode, goDuration, type DrainOptions } from './drain.js';

const OPTIONS: DrainOptions = {
  enabled: true,
  force: false,
  ignoreDaemonSets: true,
  deleteEmptyDirData: true,
  disableEviction: false,
  gracePeriodSeconds: -1,
  timeoutSeconds: 12,
  skipWaitForDeleteTimeoutSeconds: 0,
};

function setup() {
  const clock = new VirtualClock();
  const kube = testKube(clock);
  const deployment = kube.create(R.deployments, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    },
  });
  kube.create(R.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-a',
      namespace: 'default',
      labels: { app: 'web' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: deployment.metadata!.uid!,
          controller: true,
        },
      ],
    },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] },
  });
  kube.mutateStatus(R.pods, 'default', 'web-a', (p) => ({
    ...p,
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  }));
  const controller = new DisruptionController(
    kube,
    clock,
    new EventRecorder(kube, seededRandom(1)),
    () => {},
  );
  controller.start();
  return { clock, kube, controller };
}

describe('the twin\u2019s drain (kubectl pkg/drain/drain.go)', () => {
  it('prints durations as Go does', () => {
    expect([5, 60, 120, 600, 3725].map(goDuration)).toEqual(['5s', '1m0s', '2m0s', '10m0s', '1h2m5s']);
    fc.assert(
      fc.property(fc.nat(100_000), (s) => {
        const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+)s$/.exec(goDuration(s))!;
        expect(Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3])).toBe(s);
      }),
    );
  });

  it('retries a 429 every 5 s on the clock until its timeout, then fails with kubectl\u2019s error', async () => {
    const { clock, kube, controller } = setup();
    kube.create(R.poddisruptionbudgets, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 0 },
    });
    await controller.idle();
    expect(kube.get(R.poddisruptionbudgets, 'default', 'web')?.status).toMatchObject({
      expectedPods: 1,
      desiredHealthy: 1,
      currentHealthy: 1,
      disruptionsAllowed: 0,
    });
    const retries: number[] = [];
    const start = clock.now();
    const drained = drainNode(
      { kube, clock, errOut: () => retries.push(clock.now() - start) },
      'n1',
      OPTIONS,
    );
    await clock.advanceBy(20_000);
    expect(await drained).toEqual({
      ok: false,
      error: 'error when evicting pods/"web-a" -n "default": global timeout reached: 12s',
    });
    expect(retries).toEqual([0, 5_000, 10_000]);
    expect(kube.get(R.pods, 'default', 'web-a')).toBeDefined();
    controller.stop();
  });

  it('evicts what the budget allows, takes the disruption and waits for the pod to be gone', async () => {
    const { clock, kube, controller } = setup();
    kube.create(R.poddisruptionbudgets, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
    });
    await controller.idle();
    const result = await drainNode({ kube, clock }, 'n1', OPTIONS);
    expect(result).toEqual({ ok: true, evicted: ['default/web-a'], warnings: [] });
    expect(kube.get(R.pods, 'default', 'web-a')).toBeUndefined();
    await controller.idle();
    // The pod is gone: no longer in disruptedPods, and nothing healthy is left to disrupt.
    expect(kube.get(R.poddisruptionbudgets, 'default', 'web')?.status).toMatchObject({
      currentHealthy: 0,
      disruptionsAllowed: 0,
    });
    expect(
      (kube.get(R.poddisruptionbudgets, 'default', 'web')?.status as { disruptedPods?: unknown })
        .disruptedPods,
    ).toBeUndefined();
    controller.stop();
  });
});
