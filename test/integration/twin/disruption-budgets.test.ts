import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  patchRancherCluster,
  startHarness,
  whileAdvancing,
  type TwinHarness,
} from './support.js';

/**
 * PodDisruptionBudgets on the twin: policy/v1 served to the real kubectl and client-node, the disruption
 * controller's status (kubernetes pkg/controller/disruption/disruption.go), the eviction subresource's 429
 * (pkg/registry/core/pod/storage/eviction.go), and the drains of `kubectl drain`, Rancher's roll and `rke up`
 * honouring them (kubectl pkg/drain/drain.go evictPods).
 */

const VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget.";

interface PdbStatusView {
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  disruptionsAllowed?: number;
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
}

function pdbStatus(twin: Twin, name = 'web'): PdbStatusView {
  return (twin.downstream.store.get('policy/v1/poddisruptionbudgets', 'default', name)?.status ??
    {}) as PdbStatusView;
}

function podExists(twin: Twin, name: string): boolean {
  return twin.downstream.store.get('v1/pods', 'default', name) !== undefined;
}

function podReady(twin: Twin, name: string): boolean {
  const pod = twin.downstream.store.get('v1/pods', 'default', name);
  const conditions = (pod?.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return (conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A Deployment (no ReplicaSet controller runs in the twin) and pods it controls, pinned to nodes. */
async function deploymentPods(
  h: TwinHarness,
  pods: readonly { name: string; node: string }[],
  replicas: number,
): Promise<void> {
  // kubectl apply (JSON): the twin decodes no apps/v1 protobuf, which `kubectl create deployment` sends.
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
      },
    },
  };
  const created = await h.kubectl(['apply', '-f', '-'], { input: JSON.stringify(deployment) });
  expect(created.code, created.stderr).toBe(0);
  for (const p of pods) await addPod(h, p.name, p.node);
}

async function addPod(h: TwinHarness, name: string, node: string): Promise<void> {
  const uid = h.twin.downstream.store.get('apps/v1/deployments', 'default', 'web')?.metadata?.uid;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'web' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid, controller: true }],
    },
    spec: {
      nodeName: node,
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }],
    },
  };
  const applied = await h.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) });
  expect(applied.code, applied.stderr).toBe(0);
}

function workers(twin: Twin): string[] {
  return twin.nodes
    .all()
    .filter((a) => a.instance.role === 'worker')
    .map((a) => a.nodeName!);
}

async function rejection(p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    const err = e as k8s.ApiException<string>;
    return { code: err.code, body: JSON.parse(err.body) as Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

/**
 * Pods web-a and web-b of a Deployment with `replicas`, on the first two workers, and `kubectl create pdb web`;
 * returns those workers.
 */
async function webOnTwoWorkers(
  h: TwinHarness,
  options: { readonly replicas: number; readonly minAvailable: number },
): Promise<[string | undefined, string | undefined]> {
  const [w1, w2] = workers(h.twin);
  await deploymentPods(
    h,
    [
      { name: 'web-a', node: w1! },
      { name: 'web-b', node: w2! },
    ],
    options.replicas,
  );
  const pdb = await h.kubectl([
    'create',
    'pdb',
    'web',
    '--selector=app=web',
    `--min-available=${options.minAvailable}`,
  ]);
  expect(pdb.code, pdb.stderr).toBe(0);
  return [w1, w2];
}

describe('PodDisruptionBudgets and eviction on the twin', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('kubectl create/get pdb, kubectl drain retries the 429 until its timeout, and an eviction goes through once a pod is Ready', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke-intree', clock);
    const h = harness;
    await clock.advanceBy(30_000);
    const [w1, w2] = await webOnTwoWorkers(h, { replicas: 3, minAvailable: 2 });
    await advanceUntil(clock, () => pdbStatus(h.twin).expectedPods === 2 && podReady(h.twin, 'web-b'), {
      describe: () => JSON.stringify(pdbStatus(h.twin)),
    });
    // minAvailable 2 (an integer): expectedPods is the matching pods, nothing may go.
    expect(pdbStatus(h.twin)).toMatchObject({
      currentHealthy: 2,
      desiredHealthy: 2,
      expectedPods: 2,
      disruptionsAllowed: 0,
      observedGeneration: 1,
    });
    const got = await h.kubectl(['get', 'pdb', 'web']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n/);
    expect(got.stdout).toMatch(/\nweb\s+2\s+N\/A\s+0\s+\S+\n/);

    // The real kubectl drain: evicts, is refused with 429, retries after 5 s, gives up at its timeout.
    const drain = await h.kubectl([
      'drain',
      w1!,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=6s',
    ]);
    expect(drain.code).not.toBe(0);
    expect(drain.stderr).toContain(
      `error when evicting pods/"web-a" -n "default" (will retry after 5s): ${VIOLATES}`,
    );
    expect(drain.stderr).toContain('global timeout reached: 6s');
    expect(podExists(h.twin, 'web-a')).toBe(true);

    // client-node's Evict: the 429 with the DisruptionBudget cause naming the budget; nothing stored.
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(h.twin.files.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const evict = (name: string) =>
      core.createNamespacedPodEviction({
        name,
        namespace: 'default',
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } },
      });
    const refused = await rejection(evict('web-a'));
    expect(refused.code).toBe(429);
    expect(refused.body).toMatchObject({
      reason: 'TooManyRequests',
      message: VIOLATES,
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget web needs 2 healthy pods and has 2 currently',
          },
        ],
      },
    });
    expect(pdbStatus(h.twin).disruptedPods).toBeUndefined();

    // A third pod becomes Ready: one disruption allowed, the eviction deletes the pod and records it.
    await addPod(h, 'web-c', w2!);
    await advanceUntil(clock, () => pdbStatus(h.twin).disruptionsAllowed === 1, {
      describe: () => JSON.stringify(pdbStatus(h.twin)),
    });
    const resourceVersions: string[] = [];
    const unsubscribe = h.twin.downstream.store.subscribe(
      (e) => resourceVersions.push(JSON.stringify((e.object as { status?: unknown }).status)),
      { resource: 'policy/v1/poddisruptionbudgets' },
    );
    await evict('web-a');
    unsubscribe();
    expect(podExists(h.twin, 'web-a')).toBe(false);
    // The eviction's own write: one fewer allowed, the pod in disruptedPods.
    const written = JSON.parse(resourceVersions[0]!) as PdbStatusView;
    expect(written.disruptionsAllowed).toBe(0);
    expect(Object.keys(written.disruptedPods ?? {})).toEqual(['web-a']);
    await advanceUntil(
      clock,
      () => pdbStatus(h.twin).currentHealthy === 2 && !pdbStatus(h.twin).disruptedPods,
    );
    expect(pdbStatus(h.twin)).toMatchObject({ expectedPods: 2, disruptionsAllowed: 0 });

    // Two budgets over one pod: upstream's 500, the pod kept.
    const second = await h.kubectl(['create', 'pdb', 'web-too', '--selector=app=web', '--max-unavailable=1']);
    expect(second.code, second.stderr).toBe(0);
    const overlapping = await rejection(evict('web-b'));
    expect(overlapping.code).toBe(500);
    expect(overlapping.body.message).toBe(
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
    expect(podExists(h.twin, 'web-b')).toBe(true);
  });

  it('Rancher\u2019s worker drain waits on a budget: its timeout fails the machine with kubectl\u2019s error, then it proceeds once the budget allows', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-separate-pools', clock);
    const h = harness;
    await clock.advanceBy(30_000);
    const worker = h.twin.nodes.all().find((a) => a.instance.role === 'worker')!;
    const controlPlane = h.twin.nodes.all().find((a) => a.instance.role === 'control-plane')!;
    await deploymentPods(h, [{ name: 'web-a', node: worker.nodeName! }], 2);
    const pdb = await h.kubectl(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']);
    expect(pdb.code, pdb.stderr).toBe(0);
    await advanceUntil(clock, () => pdbStatus(h.twin).currentHealthy === 1);
    const drain = { enabled: true, ignoreDaemonSets: true, deleteEmptyDirData: true, timeout: 30 };
    await patchRancherCluster(h, {
      rkeConfig: {
        upgradeStrategy: { workerConcurrency: '1', workerDrainOptions: drain },
        machineGlobalConfig: { 'kubelet-arg': ['v=2'] },
      },
    });
    const message = (): string => {
      const cluster = h.twin.management!.store.get(
        'provisioning.cattle.io/v1/clusters',
        'fleet-default',
        'demo',
      );
      const conditions = (cluster?.status as { conditions?: { type: string; message?: string }[] })
        .conditions;
      return conditions?.find((c) => c.type === 'Updated')?.message ?? '';
    };
    const m = worker.instance.machineName;
    const timedOut = `draining worker node(s) ${m}: error draining machine ${m}: error when evicting pods/"web-a" -n "default": global timeout reached: 30s`;
    await advanceUntil(clock, () => message() === timedOut, { stepMs: 1_000, describe: message });
    expect(
      h.logs.some((l) =>
        l.includes(`error when evicting pods/"web-a" -n "default" (will retry after 5s): ${VIOLATES}`),
      ),
    ).toBe(true);
    expect(podExists(h.twin, 'web-a')).toBe(true);
    expect(h.logs.some((l) => l.includes(`${m} applied`))).toBe(false);
    // A second Ready pod elsewhere: the budget allows one, the next drain evicts web-a and the roll goes on.
    await addPod(h, 'web-b', controlPlane.nodeName!);
    await advanceUntil(clock, () => clusterRolledOut(h.twin), { stepMs: 1_000, describe: message });
    expect(podExists(h.twin, 'web-a')).toBe(false);
    expect(podExists(h.twin, 'web-b')).toBe(true);
    expect(h.logs.some((l) => l.includes(`drained worker node ${m} (evicted: default/web-a)`))).toBe(true);
  });

  it('rke up with drain: true evicts a workload pod and stops at a budget that allows no more, with RKE\u2019s error', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke-intree', clock);
    const h = harness;
    await clock.advanceBy(30_000);
    const [w1, w2] = await webOnTwoWorkers(h, { replicas: 2, minAvailable: 1 });
    await advanceUntil(clock, () => pdbStatus(h.twin).disruptionsAllowed === 1);
    const doc = parseDocument(readFileSync(h.twin.files.rkeConfig!, 'utf8'));
    doc.setIn(
      ['upgrade_strategy'],
      doc.createNode({
        drain: true,
        node_drain_input: { ignore_daemonsets: true, delete_local_data: true, timeout: 20 },
      }),
    );
    doc.setIn(['services', 'kubelet', 'extra_args', 'v'], '2');
    const result = await whileAdvancing(clock, h.twin.applyRkeConfig(doc.toString()), { stepMs: 1_000 });
    expect(result.ok).toBe(false);
    // One worker drained first (its pod evicted under the budget); the other's pod is then the last healthy one.
    const evicted = ['web-a', 'web-b'].filter((p) => !podExists(h.twin, p));
    expect(evicted).toHaveLength(1);
    const kept = evicted[0] === 'web-a' ? { pod: 'web-b', node: w2! } : { pod: 'web-a', node: w1! };
    expect(podExists(h.twin, kept.pod)).toBe(true);
    expect(result.ok ? '' : result.reason).toContain(
      `error draining node ${kept.node}: error when evicting pods/"${kept.pod}" -n "default": global timeout reached: 20s`,
    );
    expect(result.log.join('\n')).toContain(
      `error when evicting pods/"${kept.pod}" -n "default" (will retry after 5s): ${VIOLATES}`,
    );
  });
});
