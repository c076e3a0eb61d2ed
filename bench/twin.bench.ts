/**
 * The sandbox twin: start-up time and memory at 100, 1,000 and 5,000 nodes (rke2-intree, virtual time,
 * with the simulated controller managers), and the wall time of a full scripted seed-002 migration of
 * rke2-intree on a real clock at --time-scale 50.
 *
 *   npx tsx bench/run.ts twin
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealClock, VirtualClock } from '../src/clock/index.js';
import { loadScenario } from '../src/sandbox/scenarios/index.js';
import { startTwin } from '../src/sandbox/twin/index.js';
import { ccmHelmChart, patchCluster, rolledOut, until } from './support/rke2-twin-script.js';

const MiB = 2 ** 20;
/** With `node --expose-gc`, memory figures are measured after a full collection. */
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function startup(nodes: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-twin-bench-'));
  const clock = new VirtualClock();
  gc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const twin = await startTwin({ scenario: loadScenario('rke2-intree').scenario, clock, dir, nodes });
  const started = performance.now();
  // Until every node is Ready and every DaemonSet pod runs: twenty simulated seconds.
  await clock.advanceBy(20_000);
  const settled = performance.now();
  gc();
  const after = process.memoryUsage();
  const status = twin.status();
  await twin.close();
  rmSync(dir, { recursive: true, force: true });
  if (status.nodes.ready !== nodes) throw new Error(`only ${status.nodes.ready}/${nodes} nodes became Ready`);
  return {
    nodes,
    startMs: Math.round(started - t0),
    readyMs: Math.round(settled - t0),
    heapUsedMiB: Math.round((after.heapUsed - before.heapUsed) / MiB),
    rssMiB: Math.round(after.rss / MiB),
  };
}

async function scriptedMigration(timeScale: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-twin-bench-'));
  const clock = new RealClock({ scale: timeScale });
  const twin = await startTwin({ scenario: loadScenario('rke2-intree').scenario, clock, dir });
  const patch = (p: unknown): void => patchCluster(twin, p);
  const t0 = performance.now();
  const sim0 = clock.now();
  await clock.sleep(20_000);
  patch({
    spec: {
      rkeConfig: {
        machineSelectorConfig: [
          {
            config: { 'kube-controller-manager-arg': ['enable-leader-migration'] },
            machineLabelSelector: {
              matchExpressions: [
                { key: 'rke.cattle.io/control-plane-role', operator: 'In', values: ['true'] },
              ],
            },
          },
        ],
      },
    },
  });
  await clock.sleep(2_000);
  await until(clock, () => rolledOut(twin), 600_000, 'a migration step');
  for (const node of twin.kube.list('v1/nodes', {
    labelSelector: 'node-role.kubernetes.io/control-plane=true',
  })) {
    twin.kube.mergePatch('v1/nodes', undefined, node.metadata!.name!, { spec: { unschedulable: true } });
  }
  const chart = ccmHelmChart({ leaderMigration: true });
  patch({ spec: { rkeConfig: { additionalManifest: chart } } });
  await clock.sleep(2_000);
  await until(
    clock,
    () => {
      const ds = twin.kube.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager');
      const s = (ds?.status ?? {}) as { numberAvailable?: number };
      return s.numberAvailable === 3;
    },
    600_000,
    'the CCM rollout',
  );
  patch({
    spec: {
      rkeConfig: {
        machineGlobalConfig: { 'cloud-provider-name': 'external' },
        machineSelectorConfig: [{ config: {} }],
      },
    },
  });
  await clock.sleep(2_000);
  await until(clock, () => rolledOut(twin), 600_000, 'a migration step');
  await until(
    clock,
    () =>
      twin.status().leases['cloud-provider-extraction-migration'] ===
      twin.status().leases['cloud-controller-manager'],
    120_000,
    'the CCM taking the migration lease',
  );
  const wallMs = performance.now() - t0;
  const simulatedSeconds = (clock.now() - sim0) / 1000;
  const overlap = Math.max(0, ...Object.values(twin.ledgerReport().controllers).map((c) => c.overlapSeconds));
  await twin.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    timeScale,
    wallMs: Math.round(wallMs),
    simulatedSeconds: Math.round(simulatedSeconds),
    maxOverlapSeconds: overlap,
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const startups = [];
  for (const n of [100, 1_000, 5_000]) startups.push(await startup(n));
  return { startup: startups, migration: await scriptedMigration(50) };
}
