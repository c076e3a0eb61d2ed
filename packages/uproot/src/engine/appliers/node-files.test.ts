import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { VirtualClock } from '../../clock/index.js';
import type { Change } from '../../core/model/plan-types.js';
import type { ComponentPodFacts, LeaseFacts } from '../gates/gate-facts.js';
import type { CommandRunner, FileStore } from '../ports.js';
import { journalFor, plan, step } from '../testing/plan-fixtures.js';
import { parseCommandTemplate } from './command-template.js';
import { nodeFileApplier, type NodeFileDeps } from './node-files.js';

const CCM = 'cloud-controller-manager';
const PATH = '/etc/kubernetes/manifests/cloud-controller-manager.yaml';
const OLD = 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.32.8';
const NEW = 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.33.4';
const FLAGS = ['--cloud-provider=aws', '--leader-elect=true'];
const NODES = ['cp-1', 'cp-2', 'cp-3'];

const write: Change = {
  type: 'write-file',
  description: 'The CCM at v1.33.4',
  path: PATH,
  content: stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: CCM, namespace: 'kube-system', labels: { component: CCM } },
    spec: { containers: [{ name: CCM, image: NEW, command: [CCM, ...FLAGS] }] },
  }),
  diff: '',
};
const s = step('upgrade-kubernetes-1.33', [write]);
const ctx = { step: s, index: 0, journal: journalFor(plan([s])) };

/**
 * Three control-plane nodes whose kubelets restart the CCM 5 s after its manifest is written (only the image
 * changes: the flags stay). The leader's lease is taken 17 s after it stops (lease duration + retry) by the
 * first standby that runs, under a new identity; `takeOver: false` leaves it with nobody.
 */
function cluster(options: { leader: string; takeOver?: boolean; releasable?: boolean }) {
  const clock = new VirtualClock(Date.UTC(2026, 10, 29));
  const image = new Map(NODES.map((n) => [n, OLD]));
  const up = new Set(NODES);
  let lease: LeaseFacts = {
    namespace: 'kube-system',
    name: CCM,
    holderIdentity: `${options.leader}_0001`,
    leaseDurationSeconds: 15,
    renewTime: new Date(clock.now()).toISOString(),
  };
  const writes: { node: string; at: number; caughtUp: string[]; leaseHolder: string | undefined }[] = [];
  const leaderNode = () => lease.holderIdentity?.split('_')[0];
  // The leader renews every 2 s while its pod runs.
  const renew = async (): Promise<void> => {
    for (;;) {
      await clock.sleep(2_000);
      const node = leaderNode();
      if (node && up.has(node)) lease = { ...lease, renewTime: new Date(clock.now()).toISOString() };
    }
  };
  void renew();
  const restart = async (node: string): Promise<void> => {
    await clock.sleep(3_000);
    up.delete(node);
    await clock.sleep(2_000);
    image.set(node, NEW);
    up.add(node);
  };
  // A standby takes the lease once it expired, or at its next try (2 s) once it has no holder.
  const hand = async (): Promise<void> => {
    for (let waited = 0; waited < 17_000; waited += 2_000) {
      await clock.sleep(2_000);
      if (lease.holderIdentity === '') break;
    }
    const standby = NODES.find((n) => up.has(n) && n !== leaderNode());
    if (options.takeOver !== false && standby)
      lease = { ...lease, holderIdentity: `${standby}_0002`, renewTime: new Date(clock.now()).toISOString() };
  };
  // The Lease object behind get/replace, with the resourceVersion the API server checks.
  let version = 1;
  const released: { at: number; holderBefore: string | undefined }[] = [];
  const leaseObjects: NonNullable<NodeFileDeps['leaseObjects']> = {
    get: async (ref) =>
      ref.name === CCM
        ? {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: CCM, namespace: 'kube-system', resourceVersion: String(version) },
            spec: { ...lease },
          }
        : undefined,
    replace: async (object) => {
      if (object.metadata?.resourceVersion !== String(version)) throw new Error('409');
      version += 1;
      released.push({ at: clock.now(), holderBefore: lease.holderIdentity });
      const spec = object.spec as { holderIdentity: string; renewTime: string };
      lease = { ...lease, holderIdentity: spec.holderIdentity, renewTime: spec.renewTime };
      return object;
    },
  };
  const runner: CommandRunner = {
    run: async (spec) => {
      const node = spec.args[0]!;
      writes.push({
        node,
        at: clock.now(),
        caughtUp: NODES.filter((n) => image.get(n) === NEW && up.has(n)),
        leaseHolder: lease.holderIdentity,
      });
      // A kubelet restarts a static pod only when its manifest changed.
      if (image.get(node) !== NEW)
        void restart(node).then(() => (node === options.leader ? hand() : undefined));
      return { type: 'exited', exitCode: 0, stdout: '', stderr: '', durationMs: 0 };
    },
  };
  const pods = async (): Promise<ComponentPodFacts[]> =>
    NODES.map((n) => ({
      name: `${CCM}-${n}`,
      nodeName: n,
      labels: { component: CCM },
      args: [CCM, ...FLAGS],
      image: image.get(n)!,
      phase: up.has(n) ? 'Running' : 'Pending',
      ready: up.has(n),
    }));
  const deps: NodeFileDeps = {
    controlPlaneNodes: async () => NODES,
    nodeCommand: parseCommandTemplate('ssh {node} sudo tee {path}', '--node-command', ['node', 'path']),
    runner,
    files: {} as FileStore,
    timeoutMs: 10_000,
    confirm: undefined,
    manualDone: new Set(),
    leases: async () => [lease],
    staticPods: { clock, pods, timeoutMs: 60_000 },
    ...(options.releasable ? { leaseObjects } : {}),
  };
  return { clock, deps, writes, lease: () => lease, released };
}

describe('nodeFileApplier: rolling a manager manifest', () => {
  it('writes the leader’s node last, each node only once the one before runs the new image and is ready', async () => {
    const c = cluster({ leader: 'cp-1' });
    const done = nodeFileApplier(c.deps).apply(write as never, undefined, ctx);
    await c.clock.runUntilIdle(10 * 60_000);
    expect(await done).toMatchObject({
      type: 'done',
      record: {
        nodes: ['cp-2', 'cp-3', 'cp-1'],
        detail: expect.stringMatching(/cp-1 \(whose cloud-controller-manager leads\) last/),
      },
    });
    expect(c.writes.map((w) => w.node)).toEqual(['cp-2', 'cp-3', 'cp-1']);
    expect(c.writes.map((w) => w.caughtUp)).toEqual([[], ['cp-2'], ['cp-2', 'cp-3']]);
    // The leader was still leading when its node was touched: the standbys were up and waiting.
    expect(c.writes[2]?.leaseHolder).toBe('cp-1_0001');
  });

  it('returns only once another instance leads after the leader’s restart', async () => {
    const c = cluster({ leader: 'cp-2' });
    let finished: number | undefined;
    const done = nodeFileApplier(c.deps)
      .apply(write as never, undefined, ctx)
      .then((r) => ((finished = c.clock.now()), r));
    await c.clock.runUntilIdle(10 * 60_000);
    await done;
    const leaderWritten = c.writes.find((w) => w.node === 'cp-2')!.at;
    expect(c.lease().holderIdentity).not.toBe('cp-2_0001');
    // Restart (5 s) and handover (17 s) after the write: not before the new leader took the lease.
    expect(finished! - leaderWritten).toBeGreaterThanOrEqual(22_000);
  });

  it('releases the restarted leader’s lease once its node runs the new pod, and a standby takes it at its next try', async () => {
    const c = cluster({ leader: 'cp-2', releasable: true });
    let finished: number | undefined;
    const done = nodeFileApplier(c.deps)
      .apply(write as never, undefined, ctx)
      .then((r) => ((finished = c.clock.now()), r));
    await c.clock.runUntilIdle(10 * 60_000);
    await done;
    const leaderWritten = c.writes.find((w) => w.node === 'cp-2')!.at;
    // Released once, the old holder's, only after cp-2 ran the new image (restart 5 s after the write).
    expect(c.released).toEqual([{ at: expect.any(Number), holderBefore: 'cp-2_0001' }]);
    expect(c.released[0]!.at - leaderWritten).toBeGreaterThanOrEqual(5_000);
    expect(c.lease().holderIdentity).toMatch(/^cp-(1|3)_0002$/);
    // Restart (5 s), the next look (up to 2 s) and the standby's next try (2 s): well before the 17 s expiry.
    expect(finished! - leaderWritten).toBeLessThan(5_000 + 2_000 + 2_000 + 2_000 + 1);
  });

  it('leaves a lease renewed after the new pod started alone (a manager that kept its identity)', async () => {
    const c = cluster({ leader: 'cp-2', releasable: true });
    const startTime = new Date(Date.UTC(2026, 10, 28)).toISOString();
    const pods = c.deps.staticPods!.pods;
    const deps: NodeFileDeps = {
      ...c.deps,
      staticPods: {
        ...c.deps.staticPods!,
        pods: async (component) => (await pods(component)).map((p) => ({ ...p, startTime })),
      },
    };
    const done = nodeFileApplier(deps).apply(write as never, undefined, ctx);
    await c.clock.runUntilIdle(10 * 60_000);
    await done;
    expect(c.released).toEqual([]);
    expect(c.lease().holderIdentity).toMatch(/^cp-(1|3)_0002$/);
  });

  it('stops with UP-KUBEADM-LEASE-HANDOVER when nobody takes the lease', async () => {
    const c = cluster({ leader: 'cp-3', takeOver: false });
    const seen = nodeFileApplier(c.deps)
      .apply(write as never, undefined, ctx)
      .catch((e: unknown) => e);
    await c.clock.runUntilIdle(10 * 60_000);
    expect(await seen).toMatchObject({
      code: 'UP-KUBEADM-LEASE-HANDOVER',
      message: expect.stringMatching(/cloud-controller-manager on cp-3 led and was restarted/),
    });
  });

  it('does not wait for a handover when the leader’s node already runs the manifest (a resumed step)', async () => {
    const c = cluster({ leader: 'cp-1' });
    const done = nodeFileApplier(c.deps).apply(write as never, undefined, ctx);
    await c.clock.runUntilIdle(10 * 60_000);
    await done;
    const holder = c.lease().holderIdentity;
    const start = c.clock.now();
    let finished: number | undefined;
    const again = nodeFileApplier(c.deps)
      .apply(write as never, undefined, ctx)
      .then((r) => ((finished = c.clock.now()), r));
    await c.clock.runUntilIdle(10 * 60_000);
    expect(await again).toMatchObject({ type: 'done' });
    expect(c.writes).toHaveLength(6);
    expect(c.lease().holderIdentity).toBe(holder);
    expect(finished! - start).toBeLessThan(15_000);
  });

  it('tells a person copying the files the order, the leader’s node last', async () => {
    const c = cluster({ leader: 'cp-1' });
    const written: string[] = [];
    const deps: NodeFileDeps = {
      ...c.deps,
      nodeCommand: undefined,
      manifestsOut: '/out',
      files: { writeAtomic: (path: string) => void written.push(path) } as unknown as FileStore,
    };
    const outcome = await nodeFileApplier(deps).apply(write as never, undefined, ctx);
    expect(outcome).toMatchObject({ type: 'needs-person' });
    const text = (outcome as { instructions: string }).instructions;
    expect(text).toMatch(
      /one node at a time, in this order \(cp-1 last: its cloud-controller-manager holds the lease\)/,
    );
    expect(text).toContain(`image ${NEW}`);
    const order = [...text.matchAll(/→ (cp-\d):/g)].map((m) => m[1]);
    expect(order).toEqual(['cp-2', 'cp-3', 'cp-1']);
  });
});
