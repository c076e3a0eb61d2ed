/**
 * `uproot fleet`: preflight, plan, migrate (in this process or as Jobs in Rancher's local cluster), status,
 * report and manifests for every downstream cluster of a Rancher (docs/fleet.md). Parses flags, calls the fleet
 * toolkit, prints tables or JSON. No fleet logic here.
 */
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { CommandContext, CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderDocument, renderResult } from '../output.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { RealClock } from '../../clock/index.js';
import {
  fleetManifestsOf,
  fleetMigrate,
  fleetMigrateAsJobs,
  fleetPlan,
  fleetPreflight,
  fleetReport,
  fleetSnapshot,
  fleetStatus,
  watchFleetStatus,
  type FleetStatusReport,
  type FleetTargets,
} from '../../toolkit/fleet/index.js';
import { hostOf } from '../command-options.js';
import { fleetEventLine, migrateTable, preflightTable, snapshotTable, statusTable } from './fleet-render.js';

interface FleetCliFlags {
  kubeconfig?: string;
  rancherContext?: string;
  rancherInCluster?: boolean;
  selector?: string;
  clusters?: string;
  awsEnvDir?: string;
  output: string;
}

function addFleetTargets(cmd: Command, aws = false): Command {
  cmd
    .option(
      '--kubeconfig <file>',
      'kubeconfig with Rancher’s local cluster (default $KUBECONFIG, ~/.kube/config)',
    )
    .option('--rancher-context <name>', 'the kubeconfig context of Rancher’s local cluster')
    .option(
      '--rancher-in-cluster',
      'in a pod of Rancher’s local cluster: reach it with the pod’s service account',
    )
    .option('--selector <labels>', 'only provisioning Clusters with these labels (e.g. env=prod,tier!=edge)')
    .option('--clusters <names>', 'only these clusters: a,b,fleet-default/c');
  if (aws)
    cmd.option(
      '--aws-env-dir <dir>',
      'a directory of <cluster>.env files (export NAME=value) giving a cluster its own AWS environment',
    );
  return cmd.addOption(outputOption());
}

function targetsOf(opts: FleetCliFlags): FleetTargets {
  return {
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.rancherContext ? { rancherContext: opts.rancherContext } : {}),
    ...(opts.rancherInCluster ? { rancherInCluster: true } : {}),
    ...(opts.selector ? { selector: opts.selector } : {}),
    ...(opts.clusters ? { clusters: opts.clusters } : {}),
    ...(opts.awsEnvDir ? { awsEnvDir: opts.awsEnvDir } : {}),
  };
}

/** A whole number flag, or undefined; the toolkit checks its range. */
function whole(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || value.trim() === '') {
    throw new InputError('UP-FLEET-FLAGS', `${field} must be a number, got "${value}"`, {
      location: { field, value },
      hint: `e.g. ${field} 4`,
    });
  }
  return n;
}

const progressTo = (ctx: CommandContext) => (line: string) => ctx.io.stderr(`fleet: ${line}\n`);
/** The host's clock when it has one (the sandbox's), so every wait and request runs on it. */
const clockOf = (ctx: CommandContext) => (ctx.io.clock ? { clock: ctx.io.clock } : {});

async function runPreflight(
  ctx: CommandContext,
  opts: FleetCliFlags & { parallel?: string; targetVersion?: string },
) {
  const format = parseOutputFormat(opts.output);
  const result = await fleetPreflight(
    {
      ...targetsOf(opts),
      ...(opts.parallel ? { parallel: whole(opts.parallel, '--parallel')! } : {}),
      ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
    },
    hostOf(ctx.io),
    { ...clockOf(ctx), ...(ctx.io.interactive && format === 'text' ? { onProgress: progressTo(ctx) } : {}) },
  );
  ctx.io.stdout(
    format !== 'text' ? renderDocument({ ...result, rows: result.rows }, format) : preflightTable(result),
  );
  return result.exitCode;
}

interface MigrateFlags extends FleetCliFlags {
  yes?: boolean;
  parallel?: string;
  maxFailures?: string;
  targetVersion?: string;
  ccmImageTag?: string;
  stateDir?: string;
  gateTimeoutScale?: string;
  asJobs?: boolean;
  image?: string;
  namespace?: string;
  backoffLimit?: string;
  activeDeadline?: string;
  retryFailed?: boolean;
}

async function runMigrate(ctx: CommandContext, opts: MigrateFlags): Promise<number> {
  const format = parseOutputFormat(opts.output);
  const host = hostOf(ctx.io);
  const options = {
    ...targetsOf(opts),
    ...(opts.yes ? { yes: true } : {}),
    ...(opts.parallel ? { parallel: whole(opts.parallel, '--parallel')! } : {}),
    ...(opts.maxFailures ? { maxFailures: whole(opts.maxFailures, '--max-failures')! } : {}),
    ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
    ...(opts.ccmImageTag ? { ccmImageTag: opts.ccmImageTag } : {}),
    ...(opts.stateDir ? { stateDir: opts.stateDir } : {}),
    ...(opts.gateTimeoutScale
      ? { gateTimeoutScale: whole(opts.gateTimeoutScale, '--gate-timeout-scale')! }
      : {}),
  };
  const deps = { onProgress: progressTo(ctx), ...clockOf(ctx) };
  const result = opts.asJobs
    ? await fleetMigrateAsJobs(
        {
          ...options,
          ...(opts.image ? { image: opts.image } : {}),
          ...(opts.namespace ? { namespace: opts.namespace } : {}),
          ...(opts.backoffLimit ? { backoffLimit: whole(opts.backoffLimit, '--backoff-limit')! } : {}),
          ...(opts.activeDeadline
            ? { activeDeadlineSeconds: whole(opts.activeDeadline, '--active-deadline')! }
            : {}),
          ...(opts.retryFailed ? { retryFailed: true } : {}),
        },
        host,
        deps,
      )
    : await fleetMigrate(options, host, {
        ...deps,
        onEvent: (cluster, event) => {
          const line = fleetEventLine(cluster, event);
          if (line) ctx.io.stderr(line);
        },
      });
  ctx.io.stdout(format !== 'text' ? renderDocument(result, format) : migrateTable(result));
  return result.exitCode;
}

async function runStatus(
  ctx: CommandContext,
  opts: FleetCliFlags & { namespace?: string; watch?: boolean; interval: string },
): Promise<number> {
  const format = parseOutputFormat(opts.output);
  const options = { ...targetsOf(opts), ...(opts.namespace ? { namespace: opts.namespace } : {}) };
  const show = (r: FleetStatusReport): void => {
    if (format !== 'text') ctx.io.stdout(renderResult(r, format, opts.watch));
    else ctx.io.stdout(`${opts.watch ? `--- ${r.readAt}\n` : ''}${statusTable(r)}`);
  };
  const clock = ctx.io.clock ?? new RealClock();
  if (opts.watch) {
    const seconds = whole(opts.interval, '--interval')!;
    await watchFleetStatus(options, hostOf(ctx.io), { clock, intervalMs: Math.max(1, seconds) * 1000 }, show);
    return ExitCode.ok;
  }
  const report = await fleetStatus(options, hostOf(ctx.io), { clock });
  show(report);
  return report.counts.failed > 0 ? ExitCode.failed : ExitCode.ok;
}

export const registerFleetCommands: CommandRegistrar = (program, ctx) => {
  const fleet = program
    .command('fleet')
    .description(
      'Preflight, plan and migrate every downstream cluster of a Rancher, as Jobs in its local cluster if you like (docs/fleet.md)',
    );
  addReadCommands(fleet, ctx);
  addSnapshotCommand(fleet, ctx);
  addMigrateCommand(fleet, ctx);
  addManifestsCommand(fleet, ctx);
};

/** preflight, plan, status, report: they read and write nothing in the clusters. */
function addReadCommands(fleet: Command, ctx: CommandContext): void {
  addFleetTargets(
    fleet.command('preflight').description('Every cluster’s preflight, a few at a time: one table'),
    true,
  )
    .option('--parallel <n>', 'clusters read at once', '4')
    .option('--target-version <version>', 'the Kubernetes version the migration upgrades to')
    .action(
      ctx.run((opts: FleetCliFlags & { parallel?: string; targetVersion?: string }) =>
        runPreflight(ctx, opts),
      ),
    );

  addFleetTargets(
    fleet.command('plan').description('One plan directory per cluster, and an index (offline once read)'),
  )
    .requiredOption(
      '--out <dir>',
      'where the plans go: DIR/<namespace>/<cluster>/, DIR/INDEX.md, DIR/index.json',
    )
    .option('--target-version <version>', 'Kubernetes release to end on (default: the current one)')
    .option('--ccm-image-tag <tag>', 'cloud-controller-manager image tag instead of the pinned release')
    .action(
      ctx.run(async (opts: FleetCliFlags & { out: string; targetVersion?: string; ccmImageTag?: string }) => {
        const format = parseOutputFormat(opts.output);
        const result = await fleetPlan(
          {
            ...targetsOf(opts),
            out: opts.out,
            ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
            ...(opts.ccmImageTag ? { ccmImageTag: opts.ccmImageTag } : {}),
          },
          hostOf(ctx.io),
          { onProgress: progressTo(ctx), ...clockOf(ctx) },
        );
        ctx.io.stdout(format !== 'text' ? renderDocument(result, format) : `Index: ${result.index}\n`);
        return result.exitCode;
      }),
    );

  addFleetTargets(
    fleet.command('status').description('Every cluster’s step and verdict, from its journal and its Job'),
  )
    .option('--namespace <ns>', 'where the migration Jobs are', 'uproot-system')
    .option('-w, --watch', 'keep showing it (Ctrl-C to stop)')
    .option('--interval <seconds>', 'how often --watch reads again', '5')
    .action(
      ctx.run((opts: FleetCliFlags & { namespace?: string; watch?: boolean; interval: string }) =>
        runStatus(ctx, opts),
      ),
    );

  addFleetTargets(
    fleet
      .command('report')
      .description('One HTML page with a row per cluster, linking to each cluster’s report'),
  )
    .requiredOption('--out <dir>', 'where index.html and the clusters’ reports go')
    .action(
      ctx.run(async (opts: FleetCliFlags & { out: string }) => {
        const format = parseOutputFormat(opts.output);
        const result = await fleetReport({ ...targetsOf(opts), out: opts.out }, hostOf(ctx.io), clockOf(ctx));
        ctx.io.stdout(format !== 'text' ? renderDocument(result.model, format) : `Report: ${result.index}\n`);
        return ExitCode.ok;
      }),
    );
}

/** snapshot: `uproot snapshot` of each cluster, one scenario file each (read-only, no secrets). */
function addSnapshotCommand(fleet: Command, ctx: CommandContext): void {
  addFleetTargets(
    fleet
      .command('snapshot')
      .description(
        'Record every cluster and its AWS account (read-only, no secrets): one scenario file each, replayed as a twin by `uproot sandbox up --scenario FILE` (docs/snapshot.md)',
      ),
    true,
  )
    .requiredOption('--out-dir <dir>', 'where the files go: DIR/<namespace>/<cluster>.yaml')
    .option('--parallel <n>', 'clusters read at once', '4')
    .action(
      ctx.run(async (opts: FleetCliFlags & { outDir: string; parallel?: string }) => {
        const format = parseOutputFormat(opts.output);
        const result = await fleetSnapshot(
          {
            ...targetsOf(opts),
            outDir: opts.outDir,
            ...(opts.parallel ? { parallel: whole(opts.parallel, '--parallel')! } : {}),
          },
          hostOf(ctx.io),
          { onProgress: progressTo(ctx), ...clockOf(ctx) },
        );
        ctx.io.stdout(format !== 'text' ? renderDocument(result, format) : snapshotTable(result));
        return result.exitCode;
      }),
    );
}

function addMigrateCommand(fleet: Command, ctx: CommandContext): void {
  addFleetTargets(
    fleet.command('migrate').description('Migrate every cluster that passes preflight, in waves'),
    true,
  )
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--parallel <n>', 'clusters migrating at once (with --as-jobs: Jobs running at once)', '4')
    .option('--max-failures <k>', 'start no new migration once this many have failed', '1')
    .option('--target-version <version>', 'Kubernetes release to end on (default: the current one)')
    .option('--ccm-image-tag <tag>', 'cloud-controller-manager image tag instead of the pinned release')
    .option('--gate-timeout-scale <n>', 'multiply every gate deadline')
    .option('--state-dir <dir>', 'where the local journal copies go (<dir>/<cluster>/)', '.uproot')
    .option('--as-jobs', 'run each migration as a Kubernetes Job in Rancher’s local cluster')
    .option('--image <image>', '--as-jobs: the uproot image the Jobs run')
    .option('--namespace <ns>', '--as-jobs: the namespace uproot owns in the local cluster', 'uproot-system')
    .option('--backoff-limit <n>', '--as-jobs: pod failures a Job tolerates (each new pod resumes)', '6')
    .option('--active-deadline <seconds>', '--as-jobs: how long a Job may run', '21600')
    .option('--retry-failed', '--as-jobs: make failed Jobs again (they resume from the journal)')
    .action(ctx.run((opts: MigrateFlags) => runMigrate(ctx, opts)));
}

function addManifestsCommand(fleet: Command, ctx: CommandContext): void {
  fleet
    .command('manifests')
    .description('Print the namespace, RBAC and a Job per cluster, for GitOps (Fleet, Argo CD)')
    .option('--kubeconfig <file>', 'kubeconfig with Rancher’s local cluster')
    .option('--rancher-context <name>', 'read the clusters from Rancher’s local cluster')
    .option('--selector <labels>', 'only provisioning Clusters with these labels')
    .option('--clusters <names>', 'these clusters (without --rancher-context: rendered offline)')
    .option('--image <image>', 'the uproot image the Jobs run')
    .option('--namespace <ns>', 'the namespace uproot owns', 'uproot-system')
    .option('--target-version <version>', 'Kubernetes release to end on')
    .option('--backoff-limit <n>', 'pod failures a Job tolerates', '6')
    .option('--active-deadline <seconds>', 'how long a Job may run', '21600')
    .option('--suspend', 'render the Jobs suspended, to start them one by one')
    .action(
      ctx.run(
        async (
          opts: FleetCliFlags & {
            image?: string;
            namespace?: string;
            targetVersion?: string;
            backoffLimit?: string;
            activeDeadline?: string;
            suspend?: boolean;
          },
        ) => {
          const objects = await fleetManifestsOf(
            {
              ...targetsOf(opts),
              ...(opts.image ? { image: opts.image } : {}),
              ...(opts.namespace ? { namespace: opts.namespace } : {}),
              ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
              ...(opts.backoffLimit ? { backoffLimit: whole(opts.backoffLimit, '--backoff-limit')! } : {}),
              ...(opts.activeDeadline
                ? { activeDeadlineSeconds: whole(opts.activeDeadline, '--active-deadline')! }
                : {}),
              ...(opts.suspend ? { suspend: true } : {}),
            },
            hostOf(ctx.io),
            clockOf(ctx),
          );
          ctx.io.stdout(objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n'));
          return ExitCode.ok;
        },
      ),
    );
}
