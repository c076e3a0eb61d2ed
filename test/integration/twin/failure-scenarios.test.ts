import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  nodes,
  startHarness,
  whileAdvancing,
  type TwinHarness,
  patchRancherCluster,
} from './support.js';
import {
  ENABLE_LEADER_MIGRATION_PATCH,
  helmChartManifest,
  seedCcmValues,
  withRancherRke2Tolerations,
} from './seed-manifests.js';

/** Doing it wrong reproduces the real failures (prior-art §2). */
describe('twin failure scenarios', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  function warnings(h: TwinHarness, reason: string): string[] {
    return h.twin.downstream.store
      .list('v1/events', {})
      .items.filter((e) => e.reason === reason)
      .map((e) => String(e.message));
  }

  it('short-hostnames: external kubelets register names EC2 cannot resolve; the CCM leaves them uninitialized with the real warning', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('short-hostnames', clock);
    const h = harness;
    const { twin, kubectl } = h;
    const patch = (p: { spec: unknown }) => patchRancherCluster(harness!, p.spec);
    await clock.advanceBy(20_000);
    // In-tree, the kubelet names nodes after EC2's private DNS name whatever the hostname says.
    expect(nodes(twin).every((n) => n.name.endsWith('.ec2.internal') && n.providerID)).toBe(true);
    // Seed 004's values, with the tolerations Rancher's taints need (rke2-seed-002.test.ts shows why).
    const values = withRancherRke2Tolerations(
      seedCcmValues({ roleLabel: 'control-plane', leaderMigration: false, imageTag: 'v1.26.11' }),
    );
    expect(
      (await patch({ spec: { rkeConfig: { additionalManifest: helmChartManifest(values) } } })).code,
    ).toBe(0);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    // Seed 002 step 5 without the supervisor's naming: cloud-provider-name external.
    expect(
      (await patch({ spec: { rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'external' } } } }))
        .code,
    ).toBe(0);
    await clock.advanceBy(1_000);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    const short = () => nodes(twin).filter((n) => /^ip-\d+-\d+-\d+-\d+$/.test(n.name));
    expect(short()).toHaveLength(6);
    await advanceUntil(clock, () => warnings(h, 'FailedToGetProviderID').length >= 6, {
      stepMs: 5_000,
      maxMs: 300_000,
      describe: () => JSON.stringify(warnings(h, 'FailedToGetProviderID')),
    });
    for (const node of short()) {
      expect(node.providerID).toBeUndefined();
      expect(node.taints.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized')).toBe(true);
      expect(warnings(h, 'FailedToGetProviderID')).toContain(
        `failed to get provider ID for node ${node.name}: instance not found`,
      );
    }
    const described = await kubectl(['describe', 'node', short()[0]!.name]);
    expect(described.stdout).toContain('FailedToGetProviderID');
  });

  it('rke2-upgraded-intree: Rancher rolls 1.27 onto the first server, whose kubelet exits; the roll stops there', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-upgraded-intree', clock);
    const { twin, kubectl } = harness;
    await clock.advanceBy(180_000);
    const got = await kubectl(['get', 'nodes', '--no-headers']);
    expect(got.code, got.stderr).toBe(0);
    const rows = got.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/));
    const first = twin.nodes.all()[0]!;
    // NAME STATUS ROLES AGE VERSION: the first server NotReady, the rest untouched on 1.26. Not cordoned: with
    // drain disabled (Rancher's default) Rancher does not cordon (rancher/rancher pkg/capr/planner/drain.go).
    expect(rows.find((r) => r[0] === first.nodeName)?.[1]).toBe('NotReady');
    expect(rows.filter((r) => r[1] === 'Ready').map((r) => r[4])).toEqual(Array(5).fill('v1.26.15+rke2r1'));
    expect(first.kubeletFailure?.error).toBe('failed to run Kubelet: unknown cloud provider "aws"');
    const conditions = twin.status().cluster?.conditions as { type: string; message?: string }[];
    expect(conditions.find((c) => c.type === 'Reconciling')?.message).toBe(
      `configuring bootstrap node(s) ${first.instance.machineName}: waiting for probes: kubelet`,
    );
    expect(clusterRolledOut(twin)).toBe(false);
  });

  it('rke2-external: without a CCM every node keeps the uninitialized taint', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-external', clock);
    await clock.advanceBy(120_000);
    const all = nodes(harness.twin);
    expect(all).toHaveLength(6);
    for (const node of all) {
      expect(node.providerID).toBeUndefined();
      expect(node.taints).toContainEqual({
        key: 'node.cloudprovider.kubernetes.io/uninitialized',
        value: 'true',
        effect: 'NoSchedule',
      });
    }
  });

  it('switching rke2-intree to external without a CCM keeps existing nodes initialized and stops the KCM cloud controllers', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock);
    const { twin, kubectl } = harness;
    await clock.advanceBy(20_000);
    const patched = await kubectl([
      '--context',
      'rancher',
      'patch',
      'clusters.provisioning.cattle.io',
      '-n',
      'fleet-default',
      'demo',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'external' } } } }),
    ]);
    expect(patched.code, patched.stderr).toBe(0);
    await clock.advanceBy(1_000);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    await clock.advanceBy(30_000);
    for (const node of nodes(twin)) {
      expect(node.providerID).toMatch(/^aws:\/\/\//);
      expect(node.taints.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized')).toBe(false);
    }
    // Nobody runs the service controller any more: its last owner stopped.
    const service = twin.ledgerReport().detail as {
      controllers: Record<string, { intervals: { open?: boolean }[] }>;
    };
    expect(service.controllers['service']!.intervals.some((i) => i.open)).toBe(false);
  });

  it('chart-selector-mismatch: the chart default nodeSelector schedules the CCM nowhere', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('chart-selector-mismatch', clock);
    await clock.advanceBy(10_000);
    const ds = harness.twin.downstream.store.get(
      'apps/v1/daemonsets',
      'kube-system',
      'aws-cloud-controller-manager',
    );
    expect(ds).toBeDefined();
    expect(
      (ds!.spec as { template: { spec: { nodeSelector: unknown } } }).template.spec.nodeSelector,
    ).toEqual({
      'node-role.kubernetes.io/control-plane': '',
    });
    expect(ds!.status).toMatchObject({
      desiredNumberScheduled: 0,
      currentNumberScheduled: 0,
      numberReady: 0,
    });
    const rollout = await whileAdvancing(
      clock,
      harness.kubectl([
        'rollout',
        'status',
        'daemonset',
        '-n',
        'kube-system',
        'aws-cloud-controller-manager',
        '--timeout=30s',
      ]),
    );
    expect(rollout.code).toBe(0);
  });

  it('missing-cluster-tag: load balancer reconciliation fails with "no ClusterID found"', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('missing-cluster-tag', clock);
    const h = harness;
    await advanceUntil(
      clock,
      () => warnings(h, 'SyncLoadBalancerFailed').some((m) => m.includes('no ClusterID found')),
      {
        stepMs: 2_000,
        maxMs: 120_000,
        describe: () => JSON.stringify(warnings(h, 'SyncLoadBalancerFailed')),
      },
    );
    const described = await h.kubectl(['describe', 'service', 'web']);
    expect(described.stdout).toContain('no ClusterID found');
  });

  it("the seeds' chart without a pinned image (CCM v1.35 against KCM 1.26) runs the service controller in both managers", async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock);
    const { twin } = harness;
    const patch = (p: { spec: unknown }) => patchRancherCluster(harness!, p.spec);
    await clock.advanceBy(20_000);
    expect((await patch(ENABLE_LEADER_MIGRATION_PATCH)).code).toBe(0);
    await clock.advanceBy(1_000);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    await advanceUntil(
      clock,
      () => twin.status().leases['cloud-provider-extraction-migration'] !== undefined,
      { maxMs: 120_000 },
    );
    await clock.advanceBy(30_000);
    // Seed 004's values as written: no image.tag, so the chart's default v1.35.0 runs with the default config.
    const values = withRancherRke2Tolerations(
      seedCcmValues({ roleLabel: 'control-plane', leaderMigration: true }),
    );
    expect(
      (await patch({ spec: { rkeConfig: { additionalManifest: helmChartManifest(values) } } })).code,
    ).toBe(0);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    await clock.advanceBy(90_000);
    const service = twin.ledgerReport().controllers['service']!;
    expect(service.overlapSeconds).toBeGreaterThan(30);
    // The 1.28+ CCM migrates only cloud-node-lifecycle-controller: that one still has a single owner.
    expect(twin.ledgerReport().controllers['cloud-node-lifecycle']!.overlapSeconds).toBe(0);
  });

  it('two-tagged-security-groups: load balancer reconciliation names the instance with two tagged groups', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('two-tagged-security-groups', clock);
    const h = harness;
    await advanceUntil(
      clock,
      () =>
        warnings(h, 'SyncLoadBalancerFailed').some((m) =>
          m.includes('Multiple tagged security groups found for instance'),
        ),
      {
        stepMs: 2_000,
        maxMs: 120_000,
        describe: () => JSON.stringify(warnings(h, 'SyncLoadBalancerFailed')),
      },
    );
  });
});
