/** `uproot report`: render the journal (src/toolkit/report.ts) to stdout or --out. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option } from 'commander';
import type { CommandRegistrar } from '../program.js';
import { ExitCode } from '../../errors/index.js';
import { report } from '../../toolkit/report.js';

export const registerReportCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('report')
    .description(
      'Render the migration journal as a report: steps, timings, gate results and the ownership timeline',
    )
    .addOption(
      new Option('--format <format>', 'report format').choices(['html', 'json', 'md']).default('html'),
    )
    .option('--journal <file>', 'a journal file (default: the only one under --state-dir)')
    .option('--state-dir <dir>', 'where uproot keeps its local journal copies', '.uproot')
    .option('--out <file>', 'write the report to this file instead of stdout')
    .action(
      ctx.run(
        async (opts: {
          format: 'html' | 'json' | 'md';
          journal?: string;
          stateDir: string;
          out?: string;
        }) => {
          const { text } = await report({
            format: opts.format,
            stateDir: opts.stateDir,
            cwd: ctx.io.cwd,
            ...(opts.journal ? { journal: opts.journal } : {}),
          });
          if (opts.out) {
            writeFileSync(resolve(ctx.io.cwd, opts.out), text, { mode: 0o644 });
            ctx.io.stderr(`report written to ${opts.out}\n`);
          } else {
            ctx.io.stdout(text);
          }
          return ExitCode.ok;
        },
      ),
    );
};
