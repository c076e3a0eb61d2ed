/**
 * `uproot migrate`: parse flags, wire the real clock, clusters, planner, preflight and processes into the
 * migrate toolkit, print progress to stderr and the result to stdout (text or JSON). No migration logic here.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CommandContext, CommandRegistrar } from '../program.js';
import { parseOutputFormat, renderDocument } from '../output.js';
import type { CliIo } from '../io.js';
import { RealClock } from '../../clock/index.js';
import { isStepId, STEP_IDS, type StepId } from '../../core/plan/plan-types.js';
import { renderPlanText } from '../../core/plan/render-text.js';
import { formatError } from '../../errors/index.js';
import type { EngineEvent } from '../../engine/events.js';
import { describeGate } from '../../engine/gates/evaluate-gate.js';
import type { Journal } from '../../engine/journal/journal-schema.js';
import type { RunResult } from '../../engine/run-plan.js';
import type { ExecutionFlags, RunHost, TargetFlags } from '../../engine/session/run-settings.js';
import { migrate, type MigrateOptions, type MigrateResult } from '../../toolkit/migrate.js';
import { planFromSources, plannerTransforms, preflightVerdict } from '../../toolkit/migrate-sources.js';

export interface TargetCliFlags {
  kubeconfig?: string;
  context?: string;
  rancherContext?: string;
  cluster?: string;
  clusterFile?: string;
}

export interface ExecutionCliFlags {
  gateTimeoutScale?: string;
  rkeBinary?: string;
  rkeTimeout?: string;
  manifestsOut?: string;
  nodeCommand?: string;
  nodeDeleteCommand?: string;
  nodeCommandTimeout?: string;
  manualDone?: StepId[];
  stateDir?: string;
  output: string;
}

export function addTargetOptions(cmd: Command, withClusterFile = true): Command {
  cmd
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster being migrated (default $KUBECONFIG, ~/.kube/config)',
    )
    .option('--context <name>', 'kubeconfig context of the cluster being migrated')
    .option(
      '--rancher-context <name>',
      "RKE2 under Rancher: the kubeconfig context of Rancher's management cluster",
    )
    .option(
      '--cluster <name>',
      'RKE2 under Rancher: the provisioning Cluster, NAME or NAMESPACE/NAME (fleet-default)',
    );
  if (withClusterFile)
    cmd.option('--cluster-file <file>', 'RKE: cluster.yml; kubeadm: the manifest file or directory');
  return cmd;
}

export function addExecutionOptions(cmd: Command): Command {
  return cmd
    .option('--gate-timeout-scale <n>', 'multiply every gate deadline (e.g. 2 for slow clusters)')
    .option('--rke-binary <path>', 'RKE: the rke binary to run `rke up` with', 'rke')
    .option('--rke-timeout <seconds>', 'RKE: how long one `rke up` may take', '3600')
    .option(
      '--manifests-out <dir>',
      'kubeadm: write each node\u2019s files to DIR/<node>/<path> for you to distribute',
    )
    .option(
      '--node-command <template>',
      "kubeadm: write a file on a node, e.g. 'ssh {node} sudo tee {path}' (content on stdin)",
    )
    .option(
      '--node-delete-command <template>',
      "kubeadm: delete a file on a node, e.g. 'ssh {node} sudo rm -f {path}'",
    )
    .option('--node-command-timeout <seconds>', 'kubeadm: how long one node command may take', '120')
    .addOption(
      new Option(
        '--manual-done <step...>',
        'steps whose manual actions you have done (without a terminal)',
      ).argParser((value: string, previous: StepId[] | undefined) => [...(previous ?? []), stepIdArg(value)]),
    )
    .option('--state-dir <dir>', 'where the local journal copy is kept', '.uproot')
    .option('-o, --output <format>', 'text or json', 'text');
}

const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

/** A step id: one of STEP_IDS, or a journey's upgrade-kubernetes-1.N. */
function stepIdArg(value: string): StepId {
  if (isStepId(value)) return value;
  throw new InvalidArgumentError(`Allowed choices are ${STEP_IDS.join(', ')}, upgrade-kubernetes-1.N.`);
}

export function targetFlags(opts: TargetCliFlags): TargetFlags {
  return {
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.rancherContext ? { rancherContext: opts.rancherContext } : {}),
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    ...(opts.clusterFile ? { clusterFile: opts.clusterFile } : {}),
  };
}

export function executionFlags(opts: ExecutionCliFlags): ExecutionFlags & { stateDir?: string } {
  const out: Record<string, unknown> = {
    gateTimeoutScale: num(opts.gateTimeoutScale),
    rkeBinary: opts.rkeBinary,
    rkeTimeoutSeconds: num(opts.rkeTimeout),
    manifestsOut: opts.manifestsOut,
    nodeCommand: opts.nodeCommand,
    nodeDeleteCommand: opts.nodeDeleteCommand,
    nodeCommandTimeoutSeconds: num(opts.nodeCommandTimeout),
    manualDone: opts.manualDone,
    stateDir: opts.stateDir,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as ExecutionFlags;
}

export function hostOf(io: CliIo): RunHost {
  return {
    cwd: io.cwd,
    env: io.env,
    interactive: io.interactive,
    ...(io.confirm ? { confirm: (q: string) => io.confirm!(q) } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  };
}

const seconds = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 6_000) / 10}m` : `${Math.round(ms / 100) / 10}s`;
const indent = (text: string, pad = '      '): string =>
  text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');

/** One progress line (or a few) per engine event, for a person watching stderr. */
export function renderEvent(event: EngineEvent): string {
  switch (event.type) {
    case 'step-started':
      return `\n→ ${event.step}: ${event.title}${event.resumed ? ' (resumed)' : ''}\n`;
    case 'change-done':
      return `  ✓ ${event.description}${event.outcome === 'unchanged' ? ' (already done)' : ''}${event.detail ? ` — ${event.detail}` : ''}\n`;
    case 'gate-started':
      return `  … ${describeGate(event.gate)}${event.timeoutMs !== undefined ? ` (up to ${seconds(event.timeoutMs)})` : ''}\n`;
    case 'gate-waiting':
      return `      waiting: ${event.reason}\n`;
    case 'gate-finished':
      return event.result.type === 'passed'
        ? `  ✓ ${describeGate(event.gate)}${event.result.after >= 1000 ? ` after ${seconds(event.result.after)}` : ''}${event.result.detail ? ` — ${event.result.detail}` : ''}\n`
        : `  ✗ ${describeGate(event.gate)}: ${event.result.type === 'failed' ? event.result.reason : `timed out; last: ${event.result.last}`}\n      fix: ${event.result.fix}\n`;
    case 'step-verified':
      return `  ✓ ${event.step} verified\n`;
    case 'step-failed':
      return `  ✗ ${event.step} stopped: ${event.reason}\n${event.fix ? `      fix: ${event.fix}\n` : ''}`;
    case 'manual-action':
      return `  ! ${event.step} needs a person:\n${indent(event.instructions)}\n`;
    case 'undo-started':
      return `\n← undo ${event.step}: ${event.title}\n`;
    case 'undo-done':
      return `  ✓ ${event.description} — ${event.detail}\n`;
    case 'step-rolled-back':
      return `  ✓ ${event.step} rolled back\n`;
    case 'note':
      return `note: ${event.message}\n`;
  }
}

export function journalSummary(journal: Journal): unknown {
  return {
    cluster: journal.cluster,
    location: journal.location,
    revision: journal.revision,
    steps: journal.steps.map((s) => ({ id: s.id, state: s.state })),
  };
}

function runText(result: RunResult, lockLost: Error | undefined): string {
  const lines: string[] = [];
  const resume = '`uproot migrate --resume`';
  if (lockLost) lines.push(`stopped: ${lockLost.message}`);
  switch (result.type) {
    case 'completed':
      lines.push(
        `Migration of ${result.journal.cluster.name} complete: all ${result.journal.steps.length} steps verified.`,
        'Next: `uproot verify`.',
      );
      break;
    case 'stopped':
      lines.push(`Stopped after ${result.after} (--until), verified. Continue with ${resume}.`);
      break;
    case 'gate-failed':
      lines.push(
        `${describeFailure(result.journal, result.step)} did not verify: ${describeGate(result.gate)} ${result.result.type === 'failed' ? `failed: ${result.result.reason}` : `timed out; last: ${result.result.last}`}`,
        `fix: ${result.result.fix}`,
        `Nothing was changed after ${result.step}. Once fixed, continue with ${resume} (it checks the gates again), or undo with \`uproot rollback\`.`,
      );
      break;
    case 'apply-failed':
      lines.push(
        formatError(result.error),
        `Step ${result.step} is journaled with its backups. Continue with ${resume} once fixed, or undo with \`uproot rollback\`.`,
      );
      break;
    case 'waiting-for-person':
      lines.push(
        `Step ${result.step} waits for a person:`,
        indent(result.instructions, '  '),
        `When it is done: ${resume} at a terminal, or \`uproot migrate --resume --manual-done ${result.step}\` without one.`,
      );
      break;
    case 'interrupted':
      lines.push(
        `Interrupted${result.step ? ` during ${result.step}` : ''}; the journal is saved. Continue with ${resume}.`,
      );
      break;
    case 'rolled-back':
      lines.push('This migration was rolled back; start a new one with `uproot migrate`.');
      break;
  }
  return `${lines.join('\n')}\n`;
}

export function migrateText(result: MigrateResult): string {
  const o = result.outcome;
  switch (o.type) {
    case 'dry-run':
      return o.next
        ? `Next on --resume: ${o.next.type}${'step' in o.next ? ` ${o.next.step}` : ''}${'after' in o.next ? ` after ${o.next.after}` : ''}\n`
        : 'Dry run: nothing was changed.\n';
    case 'nothing-to-do':
      return `Nothing to do: ${o.reason}\n`;
    case 'already-completed':
      return `The migration of ${o.journal.cluster.name} is already complete (journal revision ${o.journal.revision}). Check it with \`uproot verify\`.\n`;
    case 'declined':
      return 'Declined: nothing was changed.\n';
    case 'preflight-failed':
      return `Preflight failed; nothing was changed:\n${o.failures.map((f) => `  ✗ ${f}`).join('\n')}\nFix them (see \`uproot preflight\`), or pass --skip-preflight if you know better.\n`;
    case 'ran':
      return runText(o.result, o.lockLost);
  }
}

export function migrateJson(result: MigrateResult): unknown {
  const o = result.outcome;
  const base = { schemaVersion: 'uproot.dev/migrate/v1', exitCode: result.exitCode, outcome: o.type };
  switch (o.type) {
    case 'dry-run':
      return { ...base, plan: o.plan, ...(o.next ? { next: o.next } : {}) };
    case 'nothing-to-do':
      return { ...base, reason: o.reason };
    case 'already-completed':
      return { ...base, journal: journalSummary(o.journal) };
    case 'declined':
      return base;
    case 'preflight-failed':
      return { ...base, failures: o.failures };
    case 'ran': {
      const r = o.result;
      return {
        ...base,
        result: r.type,
        ...('step' in r && r.step ? { step: r.step } : {}),
        ...(r.type === 'gate-failed'
          ? { ...codeOf(r.journal, r.step), gate: r.gate, gateResult: r.result }
          : {}),
        ...(r.type === 'apply-failed'
          ? { error: { code: r.error.code, message: r.error.message, hint: r.error.hint } }
          : {}),
        ...(r.type === 'waiting-for-person' ? { instructions: r.instructions } : {}),
        ...(o.lockLost ? { lockLost: o.lockLost.message } : {}),
        journal: journalSummary(r.journal),
      };
    }
  }
}

interface MigrateCliFlags extends TargetCliFlags, ExecutionCliFlags {
  plan?: string;
  targetVersion?: string;
  ccmImageTag?: string;
  dryRun?: boolean;
  yes?: boolean;
  resume?: boolean;
  until?: StepId;
  skipPreflight?: boolean;
}

async function runMigrate(opts: MigrateCliFlags, ctx: CommandContext): Promise<number> {
  const format = parseOutputFormat(opts.output, ['text', 'json']);
  const io = ctx.io;
  const clock = new RealClock();
  const options: MigrateOptions = {
    ...targetFlags(opts),
    ...executionFlags(opts),
    ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
    ...(opts.dryRun ? { dryRun: true } : {}),
    ...(opts.yes ? { yes: true } : {}),
    ...(opts.resume ? { resume: true } : {}),
    ...(opts.until ? { until: opts.until } : {}),
    ...(opts.skipPreflight ? { skipPreflight: true } : {}),
  };
  const result = await migrate(options, hostOf(io), {
    clock,
    buildPlan: planFromSources(io.cwd, {
      ...(opts.plan ? { planFile: opts.plan } : {}),
      ...(opts.ccmImageTag ? { ccmImageTag: opts.ccmImageTag } : {}),
    }),
    preflight: preflightVerdict(io.cwd, io.env, clock),
    transformsFor: plannerTransforms,
    onEvent: (e) => io.stderr(renderEvent(e)),
    onPlan: (plan, { resumed }) => {
      if (format === 'text')
        io.stdout(
          resumed
            ? `Resuming the journaled plan:\n${renderPlanText(plan, { diffs: false })}`
            : renderPlanText(plan),
        );
    },
  });
  io.stdout(format === 'json' ? renderDocument(migrateJson(result), 'json') : migrateText(result));
  return result.exitCode;
}

export const registerMigrateCommand: CommandRegistrar = (program, ctx) => {
  const cmd = program
    .command('migrate')
    .description(
      'Carry out the migration plan step by step behind verification gates, journaled and resumable',
    );
  addTargetOptions(cmd);
  cmd
    .option('--plan <file>', 'a plan reviewed beforehand (`uproot plan -o json`) instead of planning now')
    .option('--target-version <version>', 'Kubernetes release to end on (default: the current one)')
    .option('--ccm-image-tag <tag>', 'cloud-controller-manager image tag instead of the pinned release')
    .option('--dry-run', 'show the plan (or, with --resume, what comes next) and change nothing')
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .option('--resume', 'continue the journaled migration where it stopped')
    .addOption(new Option('--until <step>', 'stop once this step is verified').argParser(stepIdArg))
    .option('--skip-preflight', 'do not refuse on failed preflight checks');
  addExecutionOptions(cmd);
  cmd.action(ctx.run((opts: MigrateCliFlags) => runMigrate(opts, ctx)));
};

/** The stable code the journal recorded for a failed step (UP-GATE-<TYPE> for a gate). */
function failureCode(journal: Journal, step: StepId): string | undefined {
  const record = journal.steps.find((s) => s.id === step);
  return record?.state === 'failed' ? record.code : undefined;
}

function describeFailure(journal: Journal, step: StepId): string {
  const code = failureCode(journal, step);
  return code ? `error ${code}: step ${step}` : `Step ${step}`;
}

function codeOf(journal: Journal, step: StepId): { code?: string } {
  const code = failureCode(journal, step);
  return code ? { code } : {};
}
