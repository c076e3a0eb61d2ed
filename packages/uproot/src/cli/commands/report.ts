/**
 * `uproot report`: render the journal (src/toolkit/report.ts) to stdout or --out. `-o` as everywhere: text
 * (Markdown), json, yaml, and html; `--out FILE` alone writes HTML. `--format` is the deprecated spelling.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option } from 'commander';
import type { CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderDocument } from '../output.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { report } from '../../toolkit/report.js';

type ReportForm = 'text' | 'json' | 'yaml' | 'html';

interface ReportCliFlags {
  output?: string;
  format?: 'html' | 'json' | 'md';
  journal?: string;
  stateDir: string;
  out?: string;
}

/** -o wins; then the deprecated --format (md is text); then HTML for a file, text for the terminal. */
export function reportForm(opts: Pick<ReportCliFlags, 'output' | 'format' | 'out'>): ReportForm {
  if (opts.output !== undefined) {
    if (opts.output === 'html') return 'html';
    return parseOutputFormat(opts.output);
  }
  if (opts.format !== undefined) return opts.format === 'md' ? 'text' : opts.format;
  return opts.out ? 'html' : 'text';
}

export const registerReportCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('report')
    .description(
      'Render the migration journal as a report: steps, timings, gate results and the ownership timeline',
    )
    .addOption(outputOption(['html'], 'default: text, or html with --out').default(undefined))
    .addOption(
      new Option('--format <format>', 'deprecated: use -o (md is -o text)')
        .choices(['html', 'json', 'md'])
        .hideHelp(),
    )
    .option('--journal <file>', 'a journal file (default: the only one under --state-dir)')
    .option('--state-dir <dir>', 'where uproot keeps its local journal copies', '.uproot')
    .option('--out <file>', 'write the report to this file instead of stdout (HTML unless -o says otherwise)')
    .action(
      ctx.run(async (opts: ReportCliFlags) => {
        if (opts.output !== undefined && opts.format !== undefined) {
          throw new InputError('UP-CLI-OUTPUT', 'both -o and --format are given', {
            location: { field: '--format', value: opts.format },
            hint: '--format is the old spelling of -o: keep only -o',
          });
        }
        if (opts.format !== undefined) ctx.io.stderr('note: --format is deprecated; use -o\n');
        const form = reportForm(opts);
        const { text, model } = await report({
          format: form === 'html' ? 'html' : form === 'text' ? 'md' : 'json',
          stateDir: opts.stateDir,
          cwd: ctx.io.cwd,
          ...(opts.journal ? { journal: opts.journal } : {}),
        });
        const rendered = form === 'yaml' ? renderDocument(model, 'yaml') : text;
        if (opts.out) {
          writeFileSync(resolve(ctx.io.cwd, opts.out), rendered, { mode: 0o644 });
          ctx.io.stderr(`report written to ${opts.out}\n`);
        } else {
          ctx.io.stdout(rendered);
        }
        return ExitCode.ok;
      }),
    );
};
