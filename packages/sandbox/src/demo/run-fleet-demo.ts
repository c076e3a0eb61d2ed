/**
 * `uproot demo --scenario fleet`: a fleet twin (Rancher's local cluster and N downstream RKE2 clusters), then
 * what a Rancher administrator runs against a real one: fleet preflight, fleet migrate --as-jobs (each
 * cluster's migration a Job whose pod is a local `uproot migrate` process on the twin's clock), fleet status
 * and fleet report, over real HTTP with the real toolkit. Exit 0 when every cluster ended migrated, or refused
 * by preflight untouched.
 */
import { join } from 'node:path';
import {
  ExitCode,
  type RunHost,
  fleetMigrateAsJobs,
  fleetPreflight,
  fleetReport,
  fleetStatus,
  type FleetMigrateResult,
  type FleetPreflightResult,
  type FleetStatusReport,
} from 'uproot';
import { startDemoClock } from './demo-clock.js';
import { startFleetTwin } from '../fleet/fleet-twin.js';

export interface FleetDemoOptions {
  readonly clusters: number;
  readonly dir: string;
  /** Simulated seconds per real second, when not in virtual time. */
  readonly timeScale: number;
  readonly parallel?: number;
  readonly nodes?: number;
}

export interface FleetDemoResult {
  readonly exitCode: ExitCode;
  readonly preflight: FleetPreflightResult;
  readonly migration: FleetMigrateResult;
  readonly status: FleetStatusReport;
  readonly report: string;
  readonly wallSeconds: number;
  readonly simulatedSeconds: number;
}

export async function runFleetDemo(
  options: FleetDemoOptions,
  host: RunHost,
  deps: { readonly virtualTime?: boolean; readonly onProgress?: (line: string) => void } = {},
): Promise<FleetDemoResult> {
  const progress = deps.onProgress ?? (() => undefined);
  const demoClock = startDemoClock({ virtualTime: deps.virtualTime ?? false, timeScale: options.timeScale });
  const { clock, virtual } = demoClock;
  const wallStart = Date.now();
  const simStart = clock.now();
  progress(
    `starting Rancher's local cluster and ${options.clusters} downstream RKE2 clusters (${virtual ? 'virtual time' : `time x${options.timeScale}`})`,
  );
  const fleet = await startFleetTwin({
    clusters: options.clusters,
    clock,
    dir: join(options.dir, 'twin'),
    podClock: virtual ? { type: 'virtual' } : { type: 'scaled', scale: options.timeScale },
    ...(options.nodes ? { nodes: options.nodes } : {}),
  });
  try {
    const targets = {
      kubeconfig: fleet.files.kubeconfig,
      rancherContext: fleet.context,
      awsEnvDir: fleet.files.awsEnvDir,
    };
    const run: RunHost = { ...host, interactive: false };
    const deps2 = { clock, onProgress: (line: string) => progress(line) };
    progress(
      `kubeconfig ${fleet.files.kubeconfig} (context ${fleet.context}, and one per downstream cluster)`,
    );
    progress('fleet preflight');
    const preflight = await fleetPreflight({ ...targets, parallel: options.parallel ?? 4 }, run, deps2);
    progress('fleet migrate --as-jobs');
    const migration = await fleetMigrateAsJobs(
      {
        ...targets,
        yes: true,
        parallel: options.parallel ?? 4,
        maxFailures: options.clusters,
        image: 'uproot:sandbox',
        pollMs: 2_000,
      },
      run,
      deps2,
    );
    progress('fleet status');
    const status = await fleetStatus(targets, run, { clock });
    progress('fleet report');
    const { index } = await fleetReport({ ...targets, out: join(options.dir, 'report') }, run, { clock });
    const expected = migration.rows.every(
      (r) => r.outcome.type === 'migrated' || r.outcome.type === 'preflight-failed',
    );
    return {
      exitCode: expected ? ExitCode.ok : ExitCode.failed,
      preflight,
      migration,
      status,
      report: index,
      wallSeconds: Math.round((Date.now() - wallStart) / 100) / 10,
      simulatedSeconds: Math.round((clock.now() - simStart) / 100) / 10,
    };
  } finally {
    progress('stopping the fleet twin');
    await fleet.close();
    await demoClock.stop();
  }
}
