import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  nodes,
  ownerAtEnd,
  podArgs,
  serviceHostnames,
  startHarness,
  whileAdvancing,
  type TwinHarness,
} from './support.js';
import {
  ENABLE_LEADER_MIGRATION_PATCH,
  helmChartManifest,
  seedCcmValues,
  withRancherRke2Tolerations,
} from './seed-manifests.js';

/**
 * Seed 002's RKE2 tab followed by hand against the rke2-intree twin, with the real kubectl: patch the
 * provisioning Cluster in the `rancher` context, cordon, install the chart through additionalManifest (and
 * find, as on a real Rancher cluster, that seed 004's tolerations miss Rancher's taints), switch the cloud
 * provider, and verify as the seed says.
 */
describe('rke2-intree following seed 002 (RKE2)', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('migrates every node to the external CCM with the same load balancers and no controller overlap', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock);
    const { twin, kubectl } = harness;
    const patchCluster = (patch: unknown) =>
      kubectl([
        '--context',
        'rancher',
        'patch',
        'clusters.provisioning.cattle.io',
        '-n',
        'fleet-default',
        'demo',
        '--type=merge',
        '-p',
        JSON.stringify(patch),
      ]);
    const waitRollout = () =>
      advanceUntil(clock, () => clusterRolledOut(twin), {
        stepMs: 2_000,
        describe: () => JSON.stringify(twin.status().cluster),
      });

    await clock.advanceBy(30_000);
    const hostnamesBefore = serviceHostnames(twin);
    expect(Object.values(hostnamesBefore).every((h) => h?.endsWith('.elb.amazonaws.com'))).toBe(true);
    expect(nodes(twin).every((n) => n.providerID?.startsWith('aws:///'))).toBe(true);

    // 1. Leader migration on the KCM, cloud provider still aws.
    const step1 = await patchCluster(ENABLE_LEADER_MIGRATION_PATCH);
    expect(step1.code, step1.stderr).toBe(0);
    expect(step1.stdout).toContain('cluster.provisioning.cattle.io/demo patched');
    await clock.advanceBy(1_000);
    expect(clusterRolledOut(twin)).toBe(false);
    await waitRollout();
    const kcmArgs = podArgs(twin, 'kube-controller-manager-');
    expect(kcmArgs).toHaveLength(3);
    for (const args of kcmArgs) {
      expect(args).toContain('--enable-leader-migration=true');
      expect(args).toContain('--cloud-provider=aws');
    }
    // The KCM holding the main lease takes the migration lease too.
    await advanceUntil(
      clock,
      () => twin.status().leases['cloud-provider-extraction-migration'] !== undefined,
      { maxMs: 120_000 },
    );
    await clock.advanceBy(30_000);
    const kcmLeases = twin.status().leases;
    expect(kcmLeases['cloud-provider-extraction-migration']).toBe(kcmLeases['kube-controller-manager']);

    // 2. Cordon the control plane.
    const cordoned = await kubectl(['cordon', '-l', 'node-role.kubernetes.io/control-plane=true']);
    expect(cordoned.code, cordoned.stderr).toBe(0);
    expect(cordoned.stdout.match(/cordoned/g)).toHaveLength(3);

    // 3. The chart with leader migration, through additionalManifest; the DaemonSet rolls out.
    const seedValues = seedCcmValues({
      roleLabel: 'control-plane',
      leaderMigration: true,
      imageTag: 'v1.26.11',
    });
    const step3 = await patchCluster({
      spec: { rkeConfig: { additionalManifest: helmChartManifest(seedValues) } },
    });
    expect(step3.code, step3.stderr).toBe(0);
    await waitRollout();
    // The seed's tolerations (`value: 'true'`, no etcd) tolerate neither of Rancher's valueless taints on
    // these etcd + control-plane machines: the DaemonSet wants no pod at all.
    await clock.advanceBy(5_000);
    const ds = () =>
      twin.downstream.store.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager')!;
    expect(ds().status).toMatchObject({ desiredNumberScheduled: 0 });
    expect(podArgs(twin, 'aws-cloud-controller-manager-')).toHaveLength(0);
    // The tolerations preflight asks for, added to the values.
    const values = withRancherRke2Tolerations(seedValues);
    const fixed = await patchCluster({
      spec: { rkeConfig: { additionalManifest: helmChartManifest(values) } },
    });
    expect(fixed.code, fixed.stderr).toBe(0);
    await waitRollout();
    const rollout = await whileAdvancing(
      clock,
      kubectl([
        'rollout',
        'status',
        'daemonset',
        '-n',
        'kube-system',
        'aws-cloud-controller-manager',
        '--timeout=120s',
      ]),
    );
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(rollout.stdout).toContain('successfully rolled out');
    // DaemonSet pods tolerate the cordon: each control-plane node runs a CCM.
    expect(podArgs(twin, 'aws-cloud-controller-manager-')).toHaveLength(3);

    // 4. Switch to the external provider and drop leader migration from the KCM.
    const step4 = await patchCluster({
      spec: {
        rkeConfig: {
          machineGlobalConfig: { 'cloud-provider-name': 'external' },
          machineSelectorConfig: [{ config: { 'protect-kernel-defaults': false } }],
        },
      },
    });
    expect(step4.code, step4.stderr).toBe(0);
    await clock.advanceBy(1_000);
    await waitRollout();
    for (const args of podArgs(twin, 'kube-controller-manager-')) {
      expect(args).toContain('--cloud-provider=external');
      expect(args.some((a) => a.startsWith('--enable-leader-migration'))).toBe(false);
    }
    await clock.advanceBy(60_000);

    // 5. Verify as the seed says.
    const rolloutAfter = await whileAdvancing(
      clock,
      kubectl([
        'rollout',
        'status',
        'daemonset',
        '-n',
        'kube-system',
        'aws-cloud-controller-manager',
        '--timeout=60s',
      ]),
    );
    expect(rolloutAfter.code, rolloutAfter.stderr).toBe(0);
    const described = await kubectl(['describe', 'nodes']);
    expect(described.code, described.stderr).toBe(0);
    const providerIds = described.stdout.split('\n').filter((l) => l.includes('ProviderID'));
    expect(providerIds).toHaveLength(6);
    for (const line of providerIds) expect(line).toMatch(/aws:\/\/\/us-east-1[abc]\/i-0[0-9a-f]{16}/);
    // The seed has no uncordon step, and with drain disabled (Rancher's default) Rancher's roll uncordons
    // nothing (rancher/rancher pkg/capr/planner/drain.go: drain short-circuits, undrain acts only on the drain
    // annotation): the control-plane nodes cordoned in step 2 are still cordoned, the workers never were.
    const controlPlane = new Set(
      twin.downstream.store
        .list('v1/nodes')
        .items.filter((n) => n.metadata?.labels?.['node-role.kubernetes.io/control-plane'] === 'true')
        .map((n) => n.metadata?.name ?? ''),
    );
    expect(controlPlane.size).toBe(3);
    for (const node of nodes(twin)) {
      expect(node.taints.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized')).toBe(false);
      expect(node.unschedulable, `${node.name} cordoned (by step 2) or not`).toBe(
        controlPlane.has(node.name),
      );
    }
    expect(serviceHostnames(twin)).toEqual(hostnamesBefore);
    const ledger = twin.ledgerReport();
    for (const [name, c] of Object.entries(ledger.controllers))
      expect(c.overlapSeconds ?? 0, `${name} overlap`).toBe(0);
    expect(ledger.controllers['service']).toBeDefined();
    const leases = twin.status().leases;
    expect(leases['cloud-provider-extraction-migration']).toBe(leases['cloud-controller-manager']);
    expect(ownerAtEnd(twin, 'service')).toBe('cloud-controller-manager');
    expect(ownerAtEnd(twin, 'cloud-node-lifecycle')).toBe('cloud-controller-manager');
  });
});
