import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import { helmChartManifest, seedCcmValues, withRancherRke2Tolerations } from './seed-manifests.js';
import {
  advanceUntil,
  clusterRolledOut,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * Rancher writes spec.rkeConfig.additionalManifest to the servers as addons.yaml, a plan file it does not mark
 * Minor (rancher/rancher pkg/capr/planner/manifests.go getAddons): a change is rolled through the control-plane
 * tier one machine at a time (planner.go, minorPlanChangeDetected), and, the file being Dynamic (left out of
 * config.go's restartStamp and drainHash), nothing restarts or drains. The manifest takes effect once the first
 * server has it.
 */
function restarts(twin: Twin): number {
  return twin.nodes
    .all()
    .flatMap((a) => a.managers())
    .reduce((n, m) => n + m.restarts, 0);
}

describe('the twin\u2019s Rancher and additionalManifest', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('rolls a changed additionalManifest through the servers one by one, restarting and cordoning nothing', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock, { nodes: 4 });
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    expect(clusterRolledOut(twin)).toBe(true);
    const before = restarts(twin);
    const chart = helmChartManifest(
      withRancherRke2Tolerations(seedCcmValues({ roleLabel: 'control-plane', leaderMigration: true })),
    );
    expect((await patchRancherCluster(h, { rkeConfig: { additionalManifest: chart } })).code).toBe(0);
    const started = clock.now();
    await clock.advanceBy(1_000);
    // Rolling: the first server has the file (the chart is installed), the others wait their turn.
    expect(clusterRolledOut(twin)).toBe(false);
    expect(
      twin.kube.get('helm.cattle.io/v1/helmcharts', 'kube-system', 'aws-cloud-controller-manager'),
    ).toBeDefined();
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 1_000 });
    const servers = twin.nodes.all().filter((a) => a.instance.role === 'control-plane');
    const rolled = h.logs.filter((l) =>
      /rke2 planner: generation 2: configuring (bootstrap|etcd|control plane) node/.test(l),
    );
    expect(rolled).toHaveLength(servers.length);
    expect(h.logs.filter((l) => l.includes('applied (addons.yaml only)'))).toHaveLength(servers.length);
    expect(h.logs.some((l) => /generation 2: configuring worker/.test(l))).toBe(false);
    // One machine at a time, each with the rollout delay after it.
    expect(clock.now() - started).toBeGreaterThanOrEqual(
      servers.length * twin.scenario.timings.rolloutNodeDelaySeconds * 1000,
    );
    expect(restarts(twin)).toBe(before);
    const cordoned = twin.downstream.store
      .list('v1/nodes')
      .items.filter((n) => (n.spec as { unschedulable?: boolean } | undefined)?.unschedulable);
    expect(cordoned).toEqual([]);
    // The twin's own count (journey.restarts): an addons.yaml-only plan restarts no machine.
    expect(twin.ledgerReport().journey.restarts.maxByRole).toEqual({
      etcd: 0,
      'control-plane': 0,
      worker: 0,
    });

    // A plan with a new restart stamp (the servers' config.yaml changed) restarts rke2-server on each server,
    // once, and with it the component that changed.
    expect(
      (
        await patchRancherCluster(h, {
          rkeConfig: {
            machineGlobalConfig: { 'kube-controller-manager-arg': ['node-monitor-grace-period=30s'] },
          },
        })
      ).code,
    ).toBe(0);
    await clock.advanceBy(1_000);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 1_000 });
    const counted = twin.ledgerReport().journey.restarts;
    const serverCounts = counted.nodes.filter((n) => n.roles.includes('control-plane'));
    expect(serverCounts).toHaveLength(servers.length);
    for (const n of serverCounts) {
      expect(n.restarts).toBe(1);
      expect(n.processes).toMatchObject({ 'rke2-server': 1, 'kube-controller-manager': 1 });
    }
    expect(counted.maxByRole['control-plane']).toBe(1);
  }, 60_000);
});
