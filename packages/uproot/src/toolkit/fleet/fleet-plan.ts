/**
 * `uproot fleet plan --out DIR`: each selected cluster planned from its live provisioning Cluster (the plan
 * toolkit, offline once the Cluster is read) into DIR/<namespace>/<cluster>/, with DIR/index.json and
 * DIR/INDEX.md listing them. A cluster that cannot be read or planned is an index row with its error.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ExitCode } from '../../errors/index.js';
import { readRancherClusterSource } from '../../adapters/cluster-source/index.js';
import {
  clusterKey,
  fleetPlanIndex,
  renderFleetPlanIndex,
  type FleetPlanRow,
} from '../../core/fleet/index.js';
import type { RunHost } from '../session/run-settings.js';
import { plan } from '../plan.js';
import { errorRow, missingCluster, openFleet, type FleetDeps, type FleetTargets } from './fleet-session.js';

export interface FleetPlanOptions extends FleetTargets {
  /** Where the plans and the index go. */
  readonly out: string;
  readonly targetVersion?: string;
  readonly ccmImageTag?: string;
}

export interface FleetPlanResult {
  readonly rows: readonly FleetPlanRow[];
  readonly index: string;
  readonly exitCode: ExitCode;
}

export async function fleetPlan(
  options: FleetPlanOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetPlanResult> {
  const session = await openFleet(options, host, deps);
  const out = resolve(host.cwd, options.out);
  const rows: FleetPlanRow[] = session.missing.map((ref) => ({
    cluster: clusterKey(ref),
    type: 'error',
    ...missingCluster(ref),
  }));
  for (const member of session.members) {
    const dir = `${member.cluster.namespace}/${member.cluster.name}`;
    try {
      const source = await readRancherClusterSource(session.rancher.objects, member.key);
      const { plan: planned } = await plan({
        source,
        distro: 'rke2',
        out: join(out, dir),
        cwd: host.cwd,
        ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
        ...(options.ccmImageTag ? { ccmImageTag: options.ccmImageTag } : {}),
      });
      rows.push({
        cluster: member.key,
        type: 'planned',
        dir,
        outcome: planned.outcome.type,
        steps: planned.steps.length,
        kubernetes: planned.kubernetes,
      });
      session.progress(`${member.key}: planned ${planned.steps.length} steps in ${join(options.out, dir)}`);
    } catch (error) {
      rows.push({ cluster: member.key, type: 'error', ...errorRow(error) });
    }
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.json'), `${JSON.stringify(fleetPlanIndex(rows), null, 2)}\n`);
  writeFileSync(join(out, 'INDEX.md'), renderFleetPlanIndex(rows));
  return {
    rows,
    index: join(out, 'INDEX.md'),
    exitCode: rows.every((r) => r.type === 'planned') ? ExitCode.ok : ExitCode.failed,
  };
}
