/**
 * `uproot plan` against a live cluster (issue 27): with the connection flags of migrate (`--context`,
 * `--rancher-context`, `--cluster`, `--cluster-file`), the plan comes from the same builder `migrate
 * --dry-run` uses (migrate-sources.ts planFromSources: the live Rancher Cluster, or the cluster file), so a
 * plan made beforehand and the plan migrate carries out are one plan. Reads only; takes no migration lock.
 */
import { resolve } from 'node:path';
import { RealClock, type Clock } from '../clock/index.js';
import { ProcessRunner } from '../adapters/process/run-command.js';
import { writePlanOutDir } from '../adapters/files/plan-out-dir.js';
import type { MigrationPlan } from '../core/model/plan-types.js';
import { planFromSources } from './migrate-sources.js';
import type { MigrateOptions } from './migrate.js';
import { rkeBinaryTooling } from './rke-tooling-probe.js';
import { kubeconfigConnect } from './session/cluster-access.js';
import { validateTargets, type TargetFlags } from './targets.js';

export interface LivePlanOptions extends TargetFlags {
  readonly targetVersion?: string;
  readonly allowUnknownRelease?: boolean;
  readonly ccmImageTag?: string;
  readonly withNodeIpam?: boolean;
  /** RKE: the `rke` binary asked for its version (as migrate asks it). */
  readonly rkeBinary?: string;
  readonly out?: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly clock?: Clock;
}

/** True when the flags name a live cluster to plan from (not only a definition file). */
export function plansLive(
  flags: Pick<TargetFlags, 'context' | 'kubeconfig' | 'rancherContext' | 'rancherInCluster'>,
): boolean {
  return Boolean(flags.context || flags.kubeconfig || flags.rancherContext || flags.rancherInCluster);
}

export async function livePlan(
  options: LivePlanOptions,
): Promise<{ readonly plan: MigrationPlan; readonly written?: number }> {
  validateTargets(options);
  const cwd = options.cwd ?? process.cwd();
  const clock = options.clock ?? new RealClock();
  const clusters = kubeconfigConnect({ env: options.env ?? process.env, clock })(options);
  const build = planFromSources(cwd, {
    ...(options.ccmImageTag ? { ccmImageTag: options.ccmImageTag } : {}),
    ...(options.withNodeIpam ? { withNodeIpam: true } : {}),
    rkeVersion: () => rkeBinaryTooling(new ProcessRunner(clock), options.rkeBinary ?? 'rke', cwd),
  });
  const migrateOptions: MigrateOptions = { ...options, dryRun: true };
  const plan = await build({ options: migrateOptions, clusters });
  if (options.out === undefined) return { plan };
  return { plan, written: writePlanOutDir(resolve(cwd, options.out), options.out, plan) };
}
