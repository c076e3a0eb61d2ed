// The fleet twin at 20 downstream RKE2 clusters (Rancher's local cluster, one API server and one AWS emulator
// per downstream cluster, one process), in virtual time:
// - fleet preflight: requests per cluster (each cluster's preflight is read as alone: O(pages)), and what the
//   fleet adds in Rancher's local cluster (the list of Clusters and one Secret per cluster);
// - fleet migrate --parallel 10 in this process: its wall time in virtual seconds over the slowest cluster's
//   own migration (and over waves × slowest, since 16 migrating clusters at 10 at a time make two waves);
// - fleet migrate --as-jobs --parallel 10 (the pods are processes on the same virtual clock): the same figure;
// - peak resident memory: the twin alone, the twin with the in-process run, and the Jobs' pods.
// Run: `npx tsx bench/run.ts fleet` (FLEET_BENCH_CLUSTERS, FLEET_BENCH_NODES, FLEET_BENCH_JOBS=0 to skip Jobs).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock } from '../packages/uproot/src/clock/index.js';
import { startFleetTwin, type FleetTwin } from '../packages/sandbox/src/fleet/fleet-twin.js';
import { R } from '../packages/sandbox/src/twin/kube/twin-kube.js';
import {
  fleetMigrate,
  fleetMigrateAsJobs,
  fleetPreflight,
} from '../packages/uproot/src/toolkit/fleet/index.js';
import type { FleetMigrateResult } from '../packages/uproot/src/toolkit/fleet/index.js';

const CLUSTERS = Number(process.env.FLEET_BENCH_CLUSTERS ?? 20);
const NODES = process.env.FLEET_BENCH_NODES ? Number(process.env.FLEET_BENCH_NODES) : undefined;
const PARALLEL = 10;
/** Pods run the built CLI when there is one (as the image does), else this checkout's source through tsx. */
const BUILT_POD_ENTRY = fileURLToPath(
  new URL('../packages/sandbox/dist/fleet/jobs/pod-entry.js', import.meta.url),
);
const POD_ENTRY = existsSync(BUILT_POD_ENTRY) ? [BUILT_POD_ENTRY] : undefined;

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Samples this process's RSS every 200 ms of real time; returns the peak. */
function rssPeak(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
  return {
    stop: () => {
      clearInterval(timer);
      return mib(Math.max(peak, process.memoryUsage().rss));
    },
  };
}

/** Peak RSS of child processes (the Jobs' pods), summed at each sample, from /proc. */
function podRssPeak(fleet: FleetTwin): { stop(): { sumMiB: number; eachMiB: number } } {
  let sum = 0;
  let each = 0;
  const timer = setInterval(() => {
    let now = 0;
    for (const pod of fleet.pods.all()) {
      if (!pod.pid) continue;
      try {
        const status = readFileSync(`/proc/${pod.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        now += kb * 1024;
        each = Math.max(each, kb * 1024);
      } catch {
        // exited
      }
    }
    sum = Math.max(sum, now);
  }, 200);
  return { stop: () => (clearInterval(timer), { sumMiB: mib(sum), eachMiB: mib(each) }) };
}

interface Started {
  fleet: FleetTwin;
  clock: VirtualClock;
  dir: string;
  close(): Promise<void>;
}

async function start(): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-fleet-bench-'));
  const clock = new VirtualClock(Date.UTC(2026, 10, 1));
  let driving = true;
  const driver = (async () => {
    while (driving) await clock.advanceBy(250);
  })();
  const fleet = await startFleetTwin({
    clusters: CLUSTERS,
    clock,
    dir: join(dir, 'twin'),
    podClock: { type: 'virtual' },
    ...(NODES ? { nodes: NODES } : {}),
    ...(POD_ENTRY ? { podEntry: POD_ENTRY } : {}),
  });
  return {
    fleet,
    clock,
    dir,
    close: async () => {
      await fleet.close();
      driving = false;
      await driver;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Each migrated cluster's own migration, from its journal: creation to its last step's verification. */
function clusterDurations(fleet: FleetTwin, result: FleetMigrateResult): number[] {
  return result.rows
    .filter((r) => r.outcome.type === 'migrated')
    .map((r) => {
      const name = r.cluster.split('/')[1]!;
      const data = fleet.localKube.get(R.configmaps, 'fleet-default', `uproot-migration-${name}`)!
        .data as Record<string, string>;
      const journal = JSON.parse(data['journal.json']!) as { createdAt: string };
      const ends = Object.entries(data)
        .filter(([k]) => k.startsWith('step.'))
        .map(([, v]) => Date.parse((JSON.parse(v) as { verifiedAt?: string }).verifiedAt ?? ''))
        .filter((t) => !Number.isNaN(t));
      return (Math.max(...ends) - Date.parse(journal.createdAt)) / 1000;
    });
}

function migrationFigures(
  fleet: FleetTwin,
  result: FleetMigrateResult,
  virtualSeconds: number,
  wallSeconds: number,
) {
  const durations = clusterDurations(fleet, result);
  const slowest = Math.max(...durations);
  const waves = Math.ceil(durations.length / PARALLEL);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    outcomes: result.rows.reduce<Record<string, number>>(
      (acc, r) => ((acc[r.outcome.type] = (acc[r.outcome.type] ?? 0) + 1), acc),
      {},
    ),
    virtualSeconds: round(virtualSeconds),
    slowestClusterSeconds: round(slowest),
    fastestClusterSeconds: round(Math.min(...durations)),
    waves,
    wallOverSlowest: round(virtualSeconds / slowest),
    wallOverWavesTimesSlowest: round(virtualSeconds / (waves * slowest)),
    realSeconds: round(wallSeconds),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const figures: Record<string, unknown> = {
    clusters: CLUSTERS,
    nodesPerCluster: NODES ?? 'scenario (6)',
    parallel: PARALLEL,
    pods: POD_ENTRY ? 'dist (node)' : 'source (node --import tsx)',
  };
  const peak = rssPeak();
  let t = performance.now();
  const s = await start();
  figures.startSeconds = Math.round((performance.now() - t) / 100) / 10;
  figures.twinRssMiB = mib(process.memoryUsage().rss);
  const host = { cwd: s.dir, env: { PATH: process.env.PATH ?? '' }, interactive: false };
  const targets = {
    kubeconfig: s.fleet.files.kubeconfig,
    rancherContext: s.fleet.context,
    awsEnvDir: s.fleet.files.awsEnvDir,
  };
  try {
    s.fleet.local.resetStats();
    t = performance.now();
    const pre = await fleetPreflight({ ...targets, parallel: PARALLEL }, host, { clock: s.clock });
    const perCluster = pre.rows.flatMap((r) => (r.type === 'ran' ? [r.report.stats.kubernetes.total] : []));
    figures.preflight = {
      realSeconds: Math.round((performance.now() - t) / 100) / 10,
      kubeRequestsPerCluster: { min: Math.min(...perCluster), max: Math.max(...perCluster) },
      rancherRequests: s.fleet.local.stats().byVerbAndResource,
      outcomes: pre.rows.map((r) => (r.type === 'ran' ? r.outcome : 'error')).join(' '),
    };
    t = performance.now();
    const v0 = s.clock.now();
    const migrated = await fleetMigrate(
      { ...targets, parallel: PARALLEL, maxFailures: CLUSTERS, yes: true, stateDir: join(s.dir, 'state') },
      host,
      { clock: s.clock },
    );
    figures.migrateInProcess = migrationFigures(
      s.fleet,
      migrated,
      (s.clock.now() - v0) / 1000,
      (performance.now() - t) / 1000,
    );
    figures.peakRssInProcessMiB = peak.stop();
  } finally {
    await s.close();
  }
  if (process.env.FLEET_BENCH_JOBS !== '0') figures.migrateAsJobs = await asJobs();
  return figures;
}

async function asJobs(): Promise<Record<string, unknown>> {
  const s = await start();
  const host = { cwd: s.dir, env: { PATH: process.env.PATH ?? '' }, interactive: false };
  const targets = {
    kubeconfig: s.fleet.files.kubeconfig,
    rancherContext: s.fleet.context,
    awsEnvDir: s.fleet.files.awsEnvDir,
  };
  const peak = rssPeak();
  const pods = podRssPeak(s.fleet);
  try {
    const t = performance.now();
    const v0 = s.clock.now();
    const result = await fleetMigrateAsJobs(
      {
        ...targets,
        parallel: PARALLEL,
        maxFailures: CLUSTERS,
        yes: true,
        image: 'uproot:bench',
        pollMs: 2_000,
      },
      host,
      { clock: s.clock },
    );
    return {
      ...migrationFigures(s.fleet, result, (s.clock.now() - v0) / 1000, (performance.now() - t) / 1000),
      peakRssTwinMiB: peak.stop(),
      peakRssPods: pods.stop(),
    };
  } finally {
    await s.close();
  }
}
