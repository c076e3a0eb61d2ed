import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * Rancher's tiers and concurrency on the twin (rancher/rancher pkg/capr/planner/planner.go fullReconcile,
 * calculateConcurrency; drain.go): measured from what the twin's machines did, the time each machine's plan
 * started and the time its system-agent applied it (the restart), read from the twin's log.
 */

interface Roll {
  readonly machine: string;
  readonly tier: string;
  readonly start: number;
  readonly applied: number;
}

function rollsOf(logs: readonly string[], generation: number): Roll[] {
  const starts = new Map<string, { tier: string; at: number }>();
  const rolls: Roll[] = [];
  for (const line of logs) {
    const at = Date.parse(line.slice(0, 24));
    const start = new RegExp(
      `rke2 planner: generation ${generation}: configuring (.+) node\\(s\\) (\\S+)$`,
    ).exec(line);
    if (start) starts.set(start[2]!, { tier: start[1]!, at });
    const applied = /rke2 planner: (\S+) applied \(kubelet/.exec(line);
    const began = applied ? starts.get(applied[1]!) : undefined;
    if (applied && began) {
      rolls.push({ machine: applied[1]!, tier: began.tier, start: began.at, applied: at });
      starts.delete(applied[1]!);
    }
  }
  return rolls;
}

/** The most machines of a tier whose rolls (start to applied) overlapped at one moment. */
function mostAtOnce(rolls: readonly Roll[]): number {
  return Math.max(
    0,
    ...rolls.map((r) => rolls.filter((o) => o.start <= r.start && r.start < o.applied).length),
  );
}

function machinesByRole(twin: Twin, role: 'etcd' | 'control-plane' | 'worker'): string[] {
  return twin.nodes
    .all()
    .filter((a) => a.instance.role === role)
    .map((a) => a.instance.machineName);
}

describe('the twin\u2019s Rancher planner under upgradeStrategy', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('rolls etcd one at a time, the control plane controlPlaneConcurrency at a time and workers by a percentage of the tier', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-separate-pools', clock);
    const h = harness;
    await clock.advanceBy(30_000);
    expect(clusterRolledOut(h.twin)).toBe(true);
    const patch = await patchRancherCluster(h, {
      rkeConfig: {
        upgradeStrategy: { controlPlaneConcurrency: '2', workerConcurrency: '50%' },
        machineGlobalConfig: { 'kubelet-arg': ['v=2'] },
      },
    });
    expect(patch.code, patch.stderr).toBe(0);
    await clock.advanceBy(1_000);
    await advanceUntil(clock, () => clusterRolledOut(h.twin), { stepMs: 1_000 });

    const rolls = rollsOf(h.logs, 2);
    const tierOf = (names: string[]) => rolls.filter((r) => names.includes(r.machine));
    const etcd = tierOf(machinesByRole(h.twin, 'etcd'));
    const cp = tierOf(machinesByRole(h.twin, 'control-plane'));
    const workers = tierOf(machinesByRole(h.twin, 'worker'));
    expect(etcd.map((r) => r.tier)).toEqual(['bootstrap', 'etcd', 'etcd']);
    expect([etcd.length, cp.length, workers.length]).toEqual([3, 2, 3]);
    // etcd: one at a time, each started after the previous one's plan was applied.
    expect(mostAtOnce(etcd)).toBe(1);
    // The two control-plane machines together ("2"): both start at once and restart together.
    expect(mostAtOnce(cp)).toBe(2);
    expect(new Set(cp.map((r) => r.applied)).size).toBe(1);
    // Workers "50%" of three machines, rounded up: two together, the third when a slot frees.
    expect(mostAtOnce(workers)).toBe(2);
    const [first, second, third] = [...workers].sort((a, b) => a.start - b.start);
    expect(first!.start).toBe(second!.start);
    expect(third!.start).toBeGreaterThanOrEqual(Math.min(first!.applied, second!.applied));
    // Tiers in order: no control-plane machine before the last etcd one, no worker before the control plane.
    expect(Math.min(...cp.map((r) => r.start))).toBeGreaterThanOrEqual(
      Math.max(...etcd.map((r) => r.applied)),
    );
    expect(Math.min(...workers.map((r) => r.start))).toBeGreaterThanOrEqual(
      Math.max(...cp.map((r) => r.applied)),
    );
  });

  it('drains with workerDrainOptions before a worker\u2019s plan, refusing an unmanaged pod until force', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-separate-pools', clock);
    const h = harness;
    await clock.advanceBy(30_000);
    const worker = h.twin.nodes.all().find((a) => a.instance.role === 'worker')!;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bare', namespace: 'default' },
      spec: { nodeName: worker.nodeName, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
    };
    expect((await h.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) })).code).toBe(0);
    const drain = { enabled: true, ignoreDaemonSets: true, deleteEmptyDirData: true, timeout: 120 };
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
    const refused = `draining worker node(s) ${worker.instance.machineName}: error draining machine ${worker.instance.machineName}: cannot delete Pods that declare no controller (use --force to override): default/bare`;
    await advanceUntil(clock, () => message() === refused, { stepMs: 1_000, describe: message });
    // Drained means cordoned first, and nothing of the worker's plan applied yet.
    const node = () => h.twin.downstream.store.get('v1/nodes', undefined, worker.nodeName!);
    expect((node()?.spec as { unschedulable?: boolean }).unschedulable).toBe(true);
    expect(h.logs.some((l) => l.includes(`${worker.instance.machineName} applied`))).toBe(false);
    await patchRancherCluster(h, {
      rkeConfig: { upgradeStrategy: { workerDrainOptions: { ...drain, force: true } } },
    });
    await advanceUntil(clock, () => clusterRolledOut(h.twin), { stepMs: 1_000, describe: message });
    expect(h.twin.downstream.store.get('v1/pods', 'default', 'bare')).toBeUndefined();
    expect((node()?.spec as { unschedulable?: boolean }).unschedulable).toBeUndefined();
    expect(
      h.logs.some((l) =>
        l.includes(`drained worker node ${worker.instance.machineName} (evicted: default/bare)`),
      ),
    ).toBe(true);
  });
});
