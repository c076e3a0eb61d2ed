/**
 * Where migrate's plan and the distribution's transformations come from by default: a reviewed plan file
 * (`uproot plan -o json`), the live Rancher provisioning Cluster, or the cluster file(s); the planners'
 * pure `applyStep`/`applyStepToText` for re-applying steps; and preflight's verdict.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readClusterFiles, readRancherClusterSource } from '../adapters/cluster-source/index.js';
import type { Clock } from '../clock/index.js';
import { PLANNERS, detectDistro } from '../core/distros/detect.js';
import type { RkeTooling } from '../core/distros/rke/index.js';
import { stepFixing, type PreflightReport } from '../core/checks/index.js';
import { stepOptionsFromPlan } from '../core/distros/distro.js';
import { planClusterFiles } from '../core/plan/plan-cluster.js';
import { migrationPlanSchema, type MigrationPlan } from '../core/model/plan-types.js';
import { InputError, UprootError } from '../errors/index.js';
import type { StepTransforms } from '../engine/appliers/applier-types.js';
import { isRecord, type JsonRecord } from '../engine/object-diff/json.js';
import type { Clusters } from './session/cluster-access.js';
import type { ObjectStore } from '../engine/ports.js';
import type { MigrateOptions, PreflightVerdict } from './migrate-options.js';
import { preflight } from './preflight.js';
import { rancherTooling } from './rke-tooling-probe.js';
import { viaRancher } from './targets.js';

export interface PlanSourceOptions {
  /** A plan produced by `uproot plan -o json` (reviewed beforehand). */
  readonly planFile?: string;
  readonly ccmImageTag?: string;
  readonly withNodeIpam?: boolean;
  /** Asks the RKE binary for its version (`rke --version`), for an RKE cluster.yml. */
  readonly rkeVersion?: () => Promise<RkeTooling | undefined>;
}

/** The reviewed plan file (--plan); a cluster file is read by adapters/cluster-source. */
function readText(path: string, field: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'UP-MIGRATE-FILE',
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        location: { file: path, field },
        hint: 'check the path',
      },
    );
  }
}

export function readPlanFile(path: string): MigrationPlan {
  const text = readText(path, '--plan');
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new InputError(
      'UP-MIGRATE-PLAN',
      `${path} is not JSON or YAML: ${error instanceof Error ? error.message.split('\n')[0] : ''}`,
      {
        location: { file: path, field: '--plan' },
        hint: 'pass the output of `uproot plan -o json`',
      },
    );
  }
  const parsed = migrationPlanSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(
      'UP-MIGRATE-PLAN',
      `${path} is not an uproot plan: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
      {
        location: { file: path, field: issue?.path.join('.') ?? '' },
        hint: 'generate it with `uproot plan --cluster-file ... -o json` from the same uproot version',
      },
    );
  }
  return parsed.data;
}

/** The default plan builder: --plan, the live Rancher Cluster, or --cluster-file. */
export function planFromSources(cwd: string, sources: PlanSourceOptions = {}) {
  return async (input: {
    readonly options: MigrateOptions;
    readonly clusters: Clusters;
  }): Promise<MigrationPlan> => {
    const { options, clusters } = input;
    const request = {
      ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
      ...(options.allowUnknownRelease ? { allowUnknownRelease: true } : {}),
      ...(sources.ccmImageTag ? { ccmImageTag: sources.ccmImageTag } : {}),
      ...(sources.withNodeIpam ? { withNodeIpam: true } : {}),
    };
    if (sources.planFile) return readPlanFile(resolve(cwd, sources.planFile));
    if (viaRancher(options) && options.cluster && clusters.management)
      return planRancherCluster(clusters.management, options.cluster, request);
    if (options.clusterFile) {
      const files = readClusterFiles([resolve(cwd, options.clusterFile)]);
      const tooling =
        sources.rkeVersion && detectDistro(files) === 'rke' ? await sources.rkeVersion() : undefined;
      return planClusterFiles(files, { ...request, ...(tooling ? { rkeTooling: tooling } : {}) }).plan;
    }
    throw new InputError('UP-MIGRATE-SOURCE', 'migrate needs the cluster definition to plan from', {
      location: { field: '--cluster-file / --rancher-context --cluster / --plan' },
      hint: 'RKE2 under Rancher: --rancher-context CTX --cluster NAME; RKE or kubeadm: --cluster-file FILE; or a reviewed --plan plan.json',
    });
  };
}

/** The plan for a live Rancher provisioning Cluster, read from the management cluster. */
export async function planRancherCluster(
  management: ObjectStore,
  cluster: string,
  request: {
    readonly targetVersion?: string;
    readonly allowUnknownRelease?: boolean;
    readonly ccmImageTag?: string;
    readonly withNodeIpam?: boolean;
  },
): Promise<MigrationPlan> {
  const live = await readRancherClusterSource(management, cluster);
  // A provisioning Cluster (RKE2) or, for RKE under Rancher, the v3 management Cluster.
  if (!live.path.startsWith('clusters.management.cattle.io/'))
    return planClusterFiles([live], { ...request, distro: 'rke2' }).plan;
  const tooling = await rancherTooling(management);
  return planClusterFiles([live], { ...request, distro: 'rke', ...(tooling ? { rkeTooling: tooling } : {}) })
    .plan;
}

/** The planner's transformations for a plan; a planner refusing an object it does not handle yields to the patch. */
export function plannerTransforms(plan: MigrationPlan): StepTransforms {
  const planner = PLANNERS[plan.distro];
  const options = stepOptionsFromPlan(plan);
  const quietly = <T>(work: () => T): T | undefined => {
    try {
      return work();
    } catch (error) {
      if (UprootError.is(error) && error.source === 'user') return undefined;
      throw error;
    }
  };
  return {
    object: (stepId, current) => {
      const out = quietly(() => planner.applyStep(stepId, current, options));
      return isRecord(out) ? (out as JsonRecord) : undefined;
    },
    text: (stepId, text) => quietly(() => planner.applyStepToText(stepId, text, options)),
  };
}

/** Runs preflight (src/toolkit/preflight.ts) and keeps what migrate needs: the outcome and the failures. */
export function preflightVerdict(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  clock: Clock,
) {
  return async (options: MigrateOptions): Promise<PreflightVerdict> => {
    const { report } = await preflight({
      ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
      ...(options.context ? { context: options.context } : {}),
      ...(options.rancherContext ? { rancherContext: options.rancherContext } : {}),
      ...(options.rancherInCluster ? { rancherInCluster: true } : {}),
      ...(options.downstreamFromRancher ? { downstreamFromRancher: true } : {}),
      ...(options.cluster ? { cluster: options.cluster } : {}),
      ...(options.clusterFile ? { clusterFile: options.clusterFile } : {}),
      ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
      ...(options.allowUnknownRelease ? { allowUnknownRelease: true } : {}),
      env,
      cwd,
      clock,
    });
    return verdictOfReport(report);
  };
}

/** What migrate keeps of a preflight report: the outcome and each failed check with its fix. */
export function verdictOfReport(report: PreflightReport): PreflightVerdict {
  const failed = report.checks.filter((c) => c.status === 'fail');
  return {
    outcome: report.outcome,
    failedChecks: failed.map((c) => c.id),
    failures: failed.map(
      (c) =>
        `${c.title}: ${c.message}${c.status === 'fail' && c.fixes[0] ? ` (fix: ${describeFix(c.fixes[0])})` : ''}`,
    ),
  };
}

/**
 * Whether a preflight verdict stops the migration of this plan: a failed check does, unless the plan's own
 * steps fix it (the migration-lease RBAC), since their gates then prove the fix.
 */
export function preflightRefuses(verdict: PreflightVerdict, plan: MigrationPlan): boolean {
  if (verdict.outcome !== 'fail') return false;
  if (!verdict.failedChecks) return true;
  return verdict.failures.some((_, i) => {
    const check = verdict.failedChecks?.[i];
    return !check || !stepFixing(check, plan);
  });
}

function describeFix(fix: unknown): string {
  if (isRecord(fix)) {
    for (const key of ['summary', 'description', 'title', 'message'])
      if (typeof fix[key] === 'string') return fix[key];
  }
  return 'see `uproot preflight`';
}
