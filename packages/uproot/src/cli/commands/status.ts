/** `uproot status [--watch]`: the journal, the current step, lease holders, the lock and the ownership timeline. */
import type { CommandContext, CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderResult } from '../output.js';
import { RealClock } from '../../clock/index.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { status, watchStatus, type StatusReport } from '../../toolkit/status.js';
import { addTargetOptions, hostOf, targetFlags, type TargetCliFlags } from '../command-options.js';
import { controllerRowText } from '../../core/index.js';

interface StatusCliFlags extends TargetCliFlags {
  watch?: boolean;
  interval: string;
  stateDir: string;
  output: string;
}

const ICON: Readonly<Record<string, string>> = {
  pending: '·',
  applying: '…',
  applied: '◐',
  verifying: '…',
  verified: '✓',
  failed: '✗',
  'rolled-back': '←',
};

export function statusText(report: StatusReport): string {
  const out: string[] = [];
  if (report.source === 'none') {
    out.push(`No migration journal in ${report.where}.`);
  } else {
    out.push(
      `Migration of ${report.cluster?.name ?? '?'} (${report.cluster?.distro ?? '?'}), journal ${report.where}${report.source === 'local-copy' ? ' (local copy: the cluster could not be read)' : ''}`,
    );
    const phase = report.phase;
    out.push(
      `  phase: ${phase.type}${phase.type === 'in-progress' ? ` — ${phase.step} is ${phase.state}` : ''}${phase.type === 'rolling-back' && phase.undoing ? ` — undoing ${phase.undoing}` : ''}`,
    );
    if (report.next && report.next.type !== 'done') {
      out.push(`  next: ${report.next.type}${'step' in report.next ? ` ${report.next.step}` : ''}`);
    }
    out.push('  steps:');
    for (const s of report.steps) {
      out.push(
        `    ${ICON[s.state] ?? '?'} ${s.id.padEnd(26)} ${s.state.padEnd(12)}${s.at ? ` ${s.at}` : ''}`,
      );
      if (s.reason) out.push(`        ${s.reason}`, ...(s.fix ? [`        fix: ${s.fix}`] : []));
    }
  }
  if (report.clusterError) out.push(`  cluster: ${report.clusterError}`);
  if (report.elsewhere) out.push(`  ${report.source === 'none' ? 'note' : 'not live'}: ${report.elsewhere}`);
  if (report.leases.length > 0) {
    out.push('  leases (kube-system):');
    for (const l of report.leases) {
      out.push(
        `    ${l.name.padEnd(38)} ${l.holder || '(none)'}${l.renewedSecondsAgo !== undefined ? `  renewed ${l.renewedSecondsAgo}s ago` : ''}`,
      );
    }
  }
  if (report.lock) {
    out.push(
      `  lock: held by ${report.lock.holder}, renewed ${report.lock.renewedSecondsAgo}s ago${report.lock.expired ? ' (expired: that run is gone)' : ''}`,
    );
  }
  if (report.timeline.length > 0) {
    out.push('  lease holder changes:');
    for (const o of report.timeline.slice(-10))
      out.push(`    ${o.observedAt}  ${o.name}: ${o.holder || '(released)'}`);
  }
  if (report.controllers.length > 0) {
    out.push('  controllers (from the leases: overlap, largest gap, bound):');
    for (const c of report.controllers)
      out.push(
        c.state === 'running'
          ? `    ${c.name.padEnd(22)} ${controllerRowText(c)}${c.boundSeconds !== undefined ? ` (bound ${c.boundSeconds} s)` : ''}${c.overlapSeconds > 0 || (c.boundSeconds !== undefined && c.maxGapSeconds > c.boundSeconds) ? '  \u2717 promise broken' : ''}`
          : `    ${c.name.padEnd(22)} ${controllerRowText(c)}`,
      );
  }
  out.push(
    report.overlaps.length > 0
      ? `  ownership overlaps: ${report.overlaps.map((o) => o.description).join('; ')}`
      : '  ownership overlaps: none seen',
  );
  return `${out.join('\n')}\n`;
}

async function runStatus(opts: StatusCliFlags, ctx: CommandContext): Promise<number> {
  const format = parseOutputFormat(opts.output);
  const interval = Number(opts.interval);
  if (!Number.isFinite(interval) || interval <= 0) {
    throw new InputError(
      'UP-STATUS-INTERVAL',
      `--interval must be a positive number of seconds, got ${opts.interval}`,
      {
        location: { field: '--interval', value: opts.interval },
        hint: 'e.g. --interval 2',
      },
    );
  }
  const options = { ...targetFlags(opts), stateDir: opts.stateDir };
  const host = hostOf(ctx.io);
  const show = (r: StatusReport): void => {
    if (format !== 'text') ctx.io.stdout(renderResult(r, format, opts.watch));
    else ctx.io.stdout(`${opts.watch ? `--- ${r.readAt}\n` : ''}${ctx.hints().runnable(statusText(r))}`);
  };
  const clock = ctx.io.clock ?? new RealClock();
  if (opts.watch) {
    await watchStatus(options, host, { clock, intervalMs: interval * 1000 }, show);
    return ExitCode.ok;
  }
  show(await status(options, host, { clock }));
  return ExitCode.ok;
}

export const registerStatusCommand: CommandRegistrar = (program, ctx) => {
  const cmd = program
    .command('status')
    .description('Show the migration journal, the current step, lease holders and the ownership timeline');
  addTargetOptions(cmd, false);
  cmd
    .option('-w, --watch', 'keep showing it (Ctrl-C to stop)')
    .option('--interval <seconds>', 'how often --watch reads again', '2')
    .option('--state-dir <dir>', 'where the local journal copy is kept', '.uproot')
    .addOption(outputOption([], 'with --watch: one JSON document per line, or one YAML document each'))
    .action(ctx.run((opts: StatusCliFlags) => runStatus(opts, ctx)));
};
