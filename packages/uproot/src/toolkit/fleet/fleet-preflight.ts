/**
 * `uproot fleet preflight`: every selected cluster's preflight (src/toolkit/preflight.ts), a few at a time,
 * each cluster reached through Rancher's kubeconfig Secret, one row per cluster. A cluster that cannot be
 * reached is a row with its error, not the end of the run. Read-only.
 */
import { ExitCode } from '../../errors/index.js';
import type { CheckId } from '../../core/checks/check-result.js';
import type { PreflightReport } from '../../core/checks/index.js';
import { clusterKey, pacingOf } from '../../core/fleet/index.js';
import type { RunHost } from '../session/run-settings.js';
import { preflight } from '../preflight.js';
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

export const FLEET_PREFLIGHT_SCHEMA_VERSION = 'uproot.dev/fleet-preflight/v1';

export interface FleetPreflightOptions extends FleetTargets {
  /** How many clusters are read at once (default 4). */
  readonly parallel?: number;
  readonly targetVersion?: string;
}

export type FleetPreflightRow =
  | {
      readonly cluster: string;
      readonly type: 'ran';
      readonly distro: string;
      readonly kubernetesVersion?: string;
      readonly outcome: PreflightReport['outcome'];
      readonly failedChecks: readonly CheckId[];
      readonly report: PreflightReport;
    }
  | {
      readonly cluster: string;
      /** It could not be read (unreachable, no kubeconfig Secret), or uproot fleet does not migrate it. */
      readonly type: 'error';
      readonly distro?: string;
      readonly kubernetesVersion?: string;
      readonly code: string;
      readonly message: string;
    };

export interface FleetPreflightResult {
  readonly schemaVersion: typeof FLEET_PREFLIGHT_SCHEMA_VERSION;
  readonly rows: readonly FleetPreflightRow[];
  readonly exitCode: ExitCode;
}

export async function fleetPreflight(
  options: FleetPreflightOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetPreflightResult> {
  const pacing = { parallel: pacingOf(options).parallel, maxFailures: Number.POSITIVE_INFINITY };
  const session = await openFleet(options, host, deps);
  const rows = await preflightMembers(session, session.members, options, host, pacing.parallel);
  const all = [...missingRows(session), ...rows];
  return {
    schemaVersion: FLEET_PREFLIGHT_SCHEMA_VERSION,
    rows: all,
    exitCode: all.every((r) => r.type === 'ran' && r.outcome !== 'fail') ? ExitCode.ok : ExitCode.failed,
  };
}

export function missingRows(session: FleetSession): FleetPreflightRow[] {
  return session.missing.map((ref) => ({
    cluster: clusterKey(ref),
    type: 'error' as const,
    ...missingCluster(ref),
  }));
}

/** Preflight of each member, `parallel` at a time, in member order. */
export async function preflightMembers(
  session: FleetSession,
  members: readonly FleetMember[],
  options: Pick<FleetPreflightOptions, 'targetVersion'>,
  host: RunHost,
  parallel: number,
): Promise<FleetPreflightRow[]> {
  const byKey = new Map(members.map((m) => [m.key, m]));
  const results = await paced(
    members.map((m) => m.key),
    { parallel, maxFailures: Number.POSITIVE_INFINITY },
    host.signal ? { signal: host.signal } : {},
    (key) => preflightOne(session, byKey.get(key)!, options, host),
  );
  return members.flatMap((m) => {
    const row = results.get(m.key);
    return row ? [row] : [];
  });
}

async function preflightOne(
  session: FleetSession,
  member: FleetMember,
  options: Pick<FleetPreflightOptions, 'targetVersion'>,
  host: RunHost,
): Promise<FleetPreflightRow> {
  const { cluster } = member;
  const described = {
    cluster: member.key,
    distro: cluster.distro,
    ...(cluster.kubernetesVersion ? { kubernetesVersion: cluster.kubernetesVersion } : {}),
  };
  if (cluster.distro !== 'rke2') {
    return {
      ...described,
      type: 'error',
      code: 'UP-FLEET-UNSUPPORTED',
      message:
        cluster.distro === 'k3s'
          ? 'a K3s cluster: uproot migrates RKE2, RKE and kubeadm clusters'
          : 'not an RKE2 cluster provisioned by Rancher (no spec.rkeConfig): migrate it on its own with `uproot migrate`',
    };
  }
  session.progress(`${member.key}: preflight`);
  try {
    const downstream = await session.downstreamConfig(member);
    const { report } = await preflight({
      kubeConfigs: { downstream, management: session.rancher.config },
      cluster: member.key,
      env: session.awsEnv(member),
      cwd: host.cwd,
      clock: session.clock,
      ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
    });
    const failedChecks = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    session.progress(`${member.key}: preflight ${report.outcome}`);
    return {
      ...described,
      // Rancher's spec.kubernetesVersion when it has one (what Rancher runs), else what the API server says.
      ...(!described.kubernetesVersion && report.target.kubernetesVersion
        ? { kubernetesVersion: report.target.kubernetesVersion }
        : {}),
      type: 'ran',
      outcome: report.outcome,
      failedChecks,
      report,
    };
  } catch (error) {
    const e = errorRow(error);
    session.progress(`${member.key}: preflight could not run: ${e.code}`);
    return { ...described, type: 'error', ...e };
  }
}
