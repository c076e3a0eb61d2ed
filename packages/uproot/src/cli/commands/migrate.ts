/**
 * `uproot migrate`: parse flags, call the migrate toolkit (which has the real clock, clusters, planner,
 * preflight and processes as defaults), print progress to stderr and the result to stdout (text or JSON).
 * No migration logic here.
 */
import { Option } from 'commander';
import type { CommandContext, CommandRegistrar } from '../program.js';
import { parseOutputFormat, renderDocument } from '../output.js';
import { renderPlanText } from '../../core/plan/render-text.js';
import { formatError } from '../../errors/index.js';
import { RealClock } from '../../clock/index.js';
import { describeGate } from '../../engine/gates/evaluate-gate.js';
import type { Journal } from '../../engine/journal/journal-schema.js';
import type { RunResult } from '../../engine/run-plan.js';
import type { StepId } from '../../core/model/plan-types.js';
import { migrate, type MigrateOptions, type MigrateResult } from '../../toolkit/migrate.js';
import {
  addExecutionOptions,
  addTargetOptions,
  executionFlags,
  hostOf,
  indent,
  journalSummary,
  progressPrinter,
  stepIdArg,
  targetFlags,
  type ExecutionCliFlags,
  type TargetCliFlags,
} from '../command-kit.js';

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
  allowUnknownRelease?: boolean;
  ccmImageTag?: string;
  withNodeipam?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  resume?: boolean;
  autoResume?: boolean;
  until?: StepId;
  skipPreflight?: boolean;
  acceptGap?: boolean;
}

async function runMigrate(opts: MigrateCliFlags, ctx: CommandContext): Promise<number> {
  const format = parseOutputFormat(opts.output);
  const io = ctx.io;
  const hints = ctx.hints();
  const options: MigrateOptions = {
    ...targetFlags(opts),
    ...executionFlags(opts),
    ...(opts.plan ? { planFile: opts.plan } : {}),
    ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
    ...(opts.allowUnknownRelease ? { allowUnknownRelease: true } : {}),
    ...(opts.ccmImageTag ? { ccmImageTag: opts.ccmImageTag } : {}),
    ...(opts.withNodeipam ? { withNodeIpam: true } : {}),
    ...(opts.dryRun ? { dryRun: true } : {}),
    ...(opts.yes ? { yes: true } : {}),
    ...(opts.resume ? { resume: true } : {}),
    ...(opts.autoResume ? { autoResume: true } : {}),
    ...(opts.until ? { until: opts.until } : {}),
    ...(opts.skipPreflight ? { skipPreflight: true } : {}),
    ...(opts.acceptGap ? { acceptGap: true } : {}),
  };
  const clock = io.clock ?? new RealClock();
  const progress = progressPrinter((t) => io.stderr(format === 'text' ? hints.runnable(t) : t), {
    now: () => clock.now(),
    structured: format !== 'text',
    live: io.interactive && format === 'text',
  });
  const result = await migrate(options, hostOf(io), {
    clock,
    onEvent: progress.onEvent,
    onPlan: (plan, { resumed }) => {
      if (format === 'text')
        io.stdout(
          resumed
            ? `Resuming the journaled plan:\n${renderPlanText(plan, { diffs: false })}`
            : renderPlanText(plan, { outHint: false }),
        );
    },
  });
  progress.end();
  io.stdout(
    format !== 'text' ? renderDocument(migrateJson(result), format) : hints.runnable(migrateText(result)),
  );
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
    .option(
      '--allow-unknown-release',
      "accept a --target-version release newer than uproot's release table (a brand-new release)",
    )
    .option('--ccm-image-tag <tag>', 'cloud-controller-manager image tag instead of the pinned release')
    .option(
      '--with-nodeipam',
      'move the Node IPAM controller to the CCM too (refused: no aws-cloud-controller-manager release implements it)',
    )
    .option('--dry-run', 'show the plan (or, with --resume, what comes next) and change nothing')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--resume', 'continue the journaled migration where it stopped')
    .option(
      '--auto-resume',
      'continue the journaled migration if one is unfinished, else start one (what Jobs run)',
    )
    .addOption(new Option('--until <step>', 'stop once this step is verified').argParser(stepIdArg))
    .option('--skip-preflight', 'do not refuse on failed preflight checks')
    .option(
      '--accept-gap',
      'with --resume: go on past promise breaches (an overlap, or a gap past the lease bound) that happened before this run; they stay in the journal',
    );
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
