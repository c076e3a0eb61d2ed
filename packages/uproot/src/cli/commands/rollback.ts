/**
 * `uproot rollback`: undo the journaled migration, last step first, behind gates. Thin: flags → toolkit →
 * progress on stderr, result on stdout.
 */
import { RealClock } from '../../clock/index.js';
import type { CommandContext, CommandRegistrar } from '../program.js';
import { parseOutputFormat, renderDocument } from '../output.js';
import { formatError } from '../../errors/index.js';
import { describeGate } from '../../toolkit/documents.js';
import { rollback, type RollbackRunResult } from '../../toolkit/rollback.js';
import {
  addExecutionOptions,
  addTargetOptions,
  executionFlags,
  hostOf,
  targetFlags,
  type ExecutionCliFlags,
  type TargetCliFlags,
} from '../command-options.js';
import { journalSummary, progressPrinter } from '../command-kit.js';

interface RollbackCliFlags extends TargetCliFlags, ExecutionCliFlags {
  yes?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

export function rollbackText(result: RollbackRunResult): string {
  const o = result.outcome;
  const again = 'Run `uproot rollback` again to continue (it is idempotent).';
  switch (o.type) {
    case 'dry-run': {
      const stops = o.stopsBefore
        ? `Stops before ${o.stopsBefore}: it changed the Kubernetes version, and Kubernetes does not downgrade.\n`
        : '';
      return o.steps.length === 0
        ? `Nothing to undo.\n${stops}`
        : `Would undo, in this order:\n${o.steps.map((s) => `  ← ${s.id}: ${s.title}`).join('\n')}\n${stops}`;
    }
    case 'already-rolled-back':
      return `The migration of ${o.journal.cluster.name} is already rolled back.\n`;
    case 'declined':
      return 'Declined: nothing was changed.\n';
    case 'ran': {
      const r = o.result;
      const lost = o.lockLost ? `stopped: ${o.lockLost.message}\n` : '';
      switch (r.type) {
        case 'rolled-back':
          return `${lost}Rolled back ${r.steps.length} step(s): ${r.steps.join(', ') || '(none)'}. The cluster is back on the in-tree cloud provider.\n`;
        case 'nothing-to-undo':
          return `${lost}Nothing to undo: no step had changed anything.\n`;
        case 'gate-failed':
          return `${lost}Undoing ${r.step} did not verify: ${describeGate(r.gate)} ${r.result.type === 'failed' ? `failed: ${r.result.reason}` : `timed out; last: ${r.result.last}`}\nfix: ${r.result.fix}\n${again}\n`;
        case 'conflict':
          return `${lost}Undoing ${r.step} would overwrite edits made since the migration:\n${r.conflicts.map((c) => `  ${c}`).join('\n')}\nSet those fields back yourself, or pass --force to restore the values from before the migration.\n`;
        case 'undo-failed':
          return `${lost}${formatError(r.error)}\n${again}\n`;
        case 'waiting-for-person':
          return `${lost}Undoing ${r.step} needs a person:\n${r.instructions}\nWhen it is done: \`uproot rollback\` at a terminal, or \`uproot rollback --manual-done ${r.step}\` without one.\n`;
        case 'interrupted':
          return `${lost}Interrupted${r.step ? ` while undoing ${r.step}` : ''}. ${again}\n`;
        case 'stopped-at-upgrade':
          return `${lost}Rolled back ${r.steps.length} step(s): ${r.steps.join(', ')}.\n${formatError(r.error)}\n`;
      }
    }
  }
}

export function rollbackJson(result: RollbackRunResult): unknown {
  const o = result.outcome;
  const base = { schemaVersion: 'uproot.dev/rollback/v1', exitCode: result.exitCode, outcome: o.type };
  switch (o.type) {
    case 'dry-run':
      return {
        ...base,
        steps: o.steps.map((s) => s.id),
        ...(o.stopsBefore ? { stopsBefore: o.stopsBefore } : {}),
        journal: journalSummary(o.journal),
      };
    case 'already-rolled-back':
      return { ...base, journal: journalSummary(o.journal) };
    case 'declined':
      return base;
    case 'ran': {
      const r = o.result;
      return {
        ...base,
        result: r.type,
        ...('step' in r && r.step ? { step: r.step } : {}),
        ...(r.type === 'rolled-back' || r.type === 'stopped-at-upgrade' ? { steps: r.steps } : {}),
        ...(r.type === 'stopped-at-upgrade'
          ? { error: { code: r.error.code, message: r.error.message, hint: r.error.hint } }
          : {}),
        ...(r.type === 'conflict' ? { conflicts: r.conflicts } : {}),
        ...(r.type === 'gate-failed' ? { gate: r.gate, gateResult: r.result } : {}),
        ...(r.type === 'undo-failed'
          ? { error: { code: r.error.code, message: r.error.message, hint: r.error.hint } }
          : {}),
        ...(o.lockLost ? { lockLost: o.lockLost.message } : {}),
        journal: journalSummary(r.journal),
      };
    }
  }
}

async function runRollback(opts: RollbackCliFlags, ctx: CommandContext): Promise<number> {
  const format = parseOutputFormat(opts.output);
  const io = ctx.io;
  const clock = io.clock ?? new RealClock();
  const progress = progressPrinter((t) => io.stderr(format === 'text' ? ctx.hints().runnable(t) : t), {
    now: () => clock.now(),
    structured: format !== 'text',
    live: io.interactive && format === 'text',
  });
  const result = await rollback(
    {
      ...targetFlags(opts),
      ...executionFlags(opts),
      ...(opts.yes ? { yes: true } : {}),
      ...(opts.dryRun ? { dryRun: true } : {}),
      ...(opts.force ? { force: true } : {}),
    },
    hostOf(io),
    {
      clock,
      onEvent: progress.onEvent,
      onSteps: (steps) => {
        if (format === 'text' && !opts.dryRun)
          io.stdout(`Will undo, in this order:\n${steps.map((s) => `  ← ${s.id}: ${s.title}`).join('\n')}\n`);
      },
    },
  );
  progress.end();
  io.stdout(
    format !== 'text'
      ? renderDocument(rollbackJson(result), format)
      : ctx.hints().runnable(rollbackText(result)),
  );
  return result.exitCode;
}

export const registerRollbackCommand: CommandRegistrar = (program, ctx) => {
  const cmd = program
    .command('rollback')
    .description('Undo the journaled migration, last step first, back to the in-tree cloud provider');
  addTargetOptions(cmd);
  cmd
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--dry-run', 'show what would be undone and change nothing')
    .option('--force', 'restore values from before the migration even where someone edited them since');
  addExecutionOptions(cmd);
  cmd.action(ctx.run((opts: RollbackCliFlags) => runRollback(opts, ctx)));
};
