import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from 'uproot';
import { EventRecorder } from '../events/event-recorder.js';
import type { KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { testKube } from '../test-support/test-store.js';
import { DaemonSetController } from './daemonset-controller.js';
import { Scheduler } from './scheduler.js';

/** The DaemonSet controller and scheduler over an in-process store; a fake kubelet marks pods ready. */

function node(name: string, cp: boolean, extra: Record<string, unknown> = {}): KubeObject {
  const labels: Record<string, string> = cp ? { 'node-role.kubernetes.io/control-plane': 'true' } : {};
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: {
      ...(cp
        ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' }] }
        : {}),
      ...extra,
    },
  };
}

const ccmDaemonSet = (args: string[]) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'ccm', namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { app: 'ccm' } },
    updateStrategy: { type: 'RollingUpdate' },
    template: {
      metadata: { labels: { app: 'ccm' } },
      spec: {
        nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
        tolerations: [{ key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' }],
        containers: [{ name: 'ccm', image: 'ccm:v1', args }],
      },
    },
  },
});

function markReady(kube: TwinKube): void {
  for (const pod of kube.list(R.pods, { namespace: 'kube-system' })) {
    const spec = pod.spec as { nodeName?: string };
    const ready = (
      pod.status as { conditions?: { type: string; status: string }[] } | undefined
    )?.conditions?.some((c) => c.type === 'Ready');
    if (!spec.nodeName || ready) continue;
    kube.mutateStatus(R.pods, 'kube-system', pod.metadata!.name!, (d) => {
      d.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
      return d;
    });
  }
}

async function setup() {
  const clock = new VirtualClock();
  const kube = testKube(clock);
  const events = new EventRecorder(kube, seededRandom(1));
  const ds = new DaemonSetController(kube, clock, events, () => undefined);
  const scheduler = new Scheduler(kube, clock, events, () => undefined);
  for (let i = 0; i < 3; i++)
    kube.create(
      R.nodes,
      node(
        `cp-${i}`,
        true,
        i === 0
          ? {
              unschedulable: true,
              taints: [
                { key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' },
                { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
              ],
            }
          : {},
      ),
    );
  kube.create(R.nodes, node('worker-0', false));
  ds.start();
  scheduler.start();
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await clock.advanceBy(100);
      markReady(kube);
    }
    await clock.advanceBy(100);
  };
  return { clock, kube, ds, scheduler, settle };
}

describe('DaemonSet controller', () => {
  it('runs a pod on every selected node, the cordoned one included, and reports rollout status', async () => {
    const { kube, settle, ds, scheduler } = await setup();
    kube.create(R.daemonsets, ccmDaemonSet(['--v=2']));
    await settle();
    const pods = kube.list(R.pods, { namespace: 'kube-system' });
    expect(pods.map((p) => (p.spec as { nodeName: string }).nodeName).sort()).toEqual([
      'cp-0',
      'cp-1',
      'cp-2',
    ]);
    // The daemon tolerations were added (unschedulable among them).
    const tolerations = (pods[0]!.spec as { tolerations: { key?: string }[] }).tolerations.map((t) => t.key);
    expect(tolerations).toContain('node.kubernetes.io/unschedulable');
    const status = kube.get(R.daemonsets, 'kube-system', 'ccm')!.status;
    expect(status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
      updatedNumberScheduled: 3,
      observedGeneration: 1,
    });
    const events = kube
      .list(R.events, { namespace: 'kube-system' })
      .filter((e) => e.reason === 'SuccessfulCreate');
    expect(events).toHaveLength(3);
    ds.stop();
    scheduler.stop();
  });

  it('rolls a template change out one pod at a time (maxUnavailable 1)', async () => {
    const { kube, settle, clock, ds, scheduler } = await setup();
    kube.create(R.daemonsets, ccmDaemonSet(['--v=2']));
    await settle();
    kube.mutate(R.daemonsets, 'kube-system', 'ccm', (d) => {
      (d.spec as any).template.spec.containers[0].args = ['--v=5']; // eslint-disable-line @typescript-eslint/no-explicit-any
      return d;
    });
    // Right after the change: generation 2 observed, at most one pod replaced and not ready yet.
    await clock.advanceBy(100);
    const status = kube.get(R.daemonsets, 'kube-system', 'ccm')!.status as Record<string, number>;
    expect(status.observedGeneration).toBe(2);
    expect(status.updatedNumberScheduled).toBeLessThanOrEqual(1);
    expect(status.numberReady).toBeGreaterThanOrEqual(2);
    await settle();
    await settle();
    await settle();
    expect(kube.get(R.daemonsets, 'kube-system', 'ccm')!.status).toMatchObject({
      updatedNumberScheduled: 3,
      numberReady: 3,
    });
    for (const pod of kube.list(R.pods, { namespace: 'kube-system' })) {
      expect((pod.spec as { containers: { args: string[] }[] }).containers[0]!.args).toEqual(['--v=5']);
    }
    ds.stop();
    scheduler.stop();
  });

  it('a selector nothing matches schedules nothing and deleting the DaemonSet deletes its pods', async () => {
    const { kube, settle, ds, scheduler } = await setup();
    kube.create(R.daemonsets, ccmDaemonSet([]));
    await settle();
    expect(kube.list(R.pods, { namespace: 'kube-system' })).toHaveLength(3);
    kube.delete(R.daemonsets, 'kube-system', 'ccm');
    await settle();
    expect(kube.list(R.pods, { namespace: 'kube-system' })).toHaveLength(0);
    const mismatch = ccmDaemonSet([]);
    mismatch.spec.template.spec.nodeSelector = { 'node-role.kubernetes.io/control-plane': '' };
    kube.create(R.daemonsets, mismatch);
    await settle();
    expect(kube.list(R.pods, { namespace: 'kube-system' })).toHaveLength(0);
    expect(kube.get(R.daemonsets, 'kube-system', 'ccm')!.status).toMatchObject({ desiredNumberScheduled: 0 });
    ds.stop();
    scheduler.stop();
  });

  it('a NoExecute taint evicts the pods that do not tolerate it; a NoSchedule one only stops new pods', async () => {
    const { kube, settle, ds, scheduler } = await setup();
    kube.create(R.daemonsets, ccmDaemonSet([]));
    await settle();
    const nodesOfPods = () =>
      kube
        .list(R.pods, { namespace: 'kube-system' })
        .map((p) => (p.spec as { nodeName: string }).nodeName)
        .sort();
    expect(nodesOfPods()).toEqual(['cp-0', 'cp-1', 'cp-2']);
    const addTaint = (name: string, taint: Record<string, string>) =>
      kube.mutate(R.nodes, undefined, name, (d) => {
        const spec = d.spec as { taints?: unknown[] };
        spec.taints = [...(spec.taints ?? []), taint];
        return d;
      });
    // Rancher's etcd taint appears on cp-1: its pod goes (DESIRED drops), cp-2's new taint is only NoSchedule.
    addTaint('cp-1', { key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' });
    addTaint('cp-2', { key: 'example.com/maintenance', effect: 'NoSchedule' });
    await settle();
    expect(nodesOfPods()).toEqual(['cp-0', 'cp-2']);
    expect(kube.get(R.daemonsets, 'kube-system', 'ccm')!.status).toMatchObject({
      desiredNumberScheduled: 1,
      currentNumberScheduled: 1,
      numberMisscheduled: 1,
    });
    // Tolerating the etcd taint brings the pod back.
    kube.mutate(R.daemonsets, 'kube-system', 'ccm', (d) => {
      const spec = (d.spec as { template: { spec: { tolerations: unknown[] } } }).template.spec;
      spec.tolerations.push({ key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' });
      return d;
    });
    await settle();
    await settle();
    expect(nodesOfPods()).toContain('cp-1');
    ds.stop();
    scheduler.stop();
  });
});
