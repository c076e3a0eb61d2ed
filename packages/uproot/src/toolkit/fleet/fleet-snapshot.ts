/**
 * `uproot fleet snapshot --out-dir DIR`: `uproot snapshot` (toolkit/snapshot.ts, the one snapshot code path) of
 * each selected downstream cluster, reached through Rancher's kubeconfig Secret, with its provisioning Cluster
 * read from Rancher's local cluster; one scenario file per cluster, DIR/<namespace>/<cluster>.yaml, each of
 * which `uproot sandbox up --scenario FILE` replays as a twin. Read-only and without secrets like `snapshot`.
 * A cluster that cannot be read is a row with its error, not the end of the run.
 */
import { join, resolve } from 'node:path';
import { ExitCode } from '../../errors/index.js';
import { clusterKey, pacingOf } from '../../core/fleet/index.js';
import type { RunHost } from '../session/run-settings.js';
import { snapshot } from '../snapshot.js';
import {
  errorRow,
  missingCluster,
  openFleet,
  paced,
  type FleetDeps,
  type FleetMember,
  type FleetSession,
  type FleetTargets,
} from './fleet-session.js';

export const FLEET_SNAPSHOT_SCHEMA_VERSION = 'uproot.dev/fleet-snapshot/v1';

export interface FleetSnapshotOptions extends FleetTargets {
  /** Where the scenario files go: DIR/<namespace>/<cluster>.yaml. */
  readonly outDir: string;
  /** How many clusters are read at once (default 4). */
  readonly parallel?: number;
}

export type FleetSnapshotRow =
  | {
      readonly cluster: string;
      readonly type: 'written';
      /** The file, relative to the output directory. */
      readonly file: string;
      readonly bytes: number;
      readonly nodes: number;
      readonly requests: { readonly kubernetes: number; readonly aws: number };
      /** Parts that could not be read (the replay cannot reproduce them). */
      readonly unavailable: readonly string[];
    }
  | { readonly cluster: string; readonly type: 'error'; readonly code: string; readonly message: string };

export interface FleetSnapshotResult {
  readonly schemaVersion: typeof FLEET_SNAPSHOT_SCHEMA_VERSION;
  /** The output directory, absolute. */
  readonly outDir: string;
  readonly rows: readonly FleetSnapshotRow[];
  readonly exitCode: ExitCode;
}

export async function fleetSnapshot(
  options: FleetSnapshotOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetSnapshotResult> {
  const parallel = pacingOf({
    ...(options.parallel !== undefined ? { parallel: options.parallel } : {}),
  }).parallel;
  const session = await openFleet(options, host, deps);
  const outDir = resolve(host.cwd, options.outDir);
  const byKey = new Map(session.members.map((m) => [m.key, m]));
  const results = await paced(
    session.members.map((m) => m.key),
    { parallel, maxFailures: Number.POSITIVE_INFINITY },
    host.signal ? { signal: host.signal } : {},
    (key) => snapshotOne(session, byKey.get(key)!, outDir, host),
  );
  const rows: FleetSnapshotRow[] = [
    ...session.missing.map((ref) => ({
      cluster: clusterKey(ref),
      type: 'error' as const,
      ...missingCluster(ref),
    })),
    ...session.members.flatMap((m) => {
      const row = results.get(m.key);
      return row ? [row] : [];
    }),
  ];
  return {
    schemaVersion: FLEET_SNAPSHOT_SCHEMA_VERSION,
    outDir,
    rows,
    exitCode: rows.every((r) => r.type === 'written') ? ExitCode.ok : ExitCode.failed,
  };
}

async function snapshotOne(
  session: FleetSession,
  member: FleetMember,
  outDir: string,
  host: RunHost,
): Promise<FleetSnapshotRow> {
  const file = join(member.cluster.namespace, `${member.cluster.name}.yaml`);
  session.progress(`${member.key}: snapshot`);
  try {
    const downstream = await session.downstreamConfig(member);
    const run = await snapshot({
      kubeConfigs: { downstream, management: session.rancher.config },
      cluster: member.key,
      env: session.awsEnv(member),
      cwd: host.cwd,
      clock: session.clock,
      out: join(outDir, file),
    });
    session.progress(`${member.key}: wrote ${file} (${run.bytes} bytes)`);
    return {
      cluster: member.key,
      type: 'written',
      file,
      bytes: run.bytes,
      nodes: run.scenario.snapshot.kubernetes.nodes.length,
      requests: run.requests,
      unavailable: Object.keys(run.scenario.snapshot.unavailable),
    };
  } catch (error) {
    const e = errorRow(error);
    session.progress(`${member.key}: snapshot could not run: ${e.code}`);
    return { cluster: member.key, type: 'error', ...e };
  }
}
