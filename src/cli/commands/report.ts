import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option } from 'commander';
import type { CommandRegistrar } from '../program.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { journalSchema, type Journal } from '../../engine/journal/journal-schema.js';
import {
  buildReportModel,
  journalOwnership,
  renderReportHtml,
  renderReportMarkdown,
} from '../../report/index.js';

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
          const file = opts.journal
            ? resolve(ctx.io.cwd, opts.journal)
            : findJournal(resolve(ctx.io.cwd, opts.stateDir));
          const journal = readJournal(file);
          const model = buildReportModel(journal, { ownership: journalOwnership(journal), now: Date.now() });
          const text =
            opts.format === 'html'
              ? renderReportHtml(model)
              : opts.format === 'md'
                ? renderReportMarkdown(model)
                : `${JSON.stringify(model, null, 2)}\n`;
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

function findJournal(stateDir: string): string {
  let dirs: string[] = [];
  try {
    dirs = readdirSync(stateDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    // handled below
  }
  if (dirs.length !== 1) {
    throw new InputError(
      'UP-REPORT-JOURNAL',
      dirs.length === 0
        ? `no migration journal under ${stateDir}`
        : `several journals under ${stateDir}: ${dirs.join(', ')}`,
      {
        location: { file: stateDir, field: '--journal' },
        hint: 'pass --journal .uproot/<cluster>/journal.json',
      },
    );
  }
  return join(stateDir, dirs[0]!, 'journal.json');
}

export function readJournal(file: string): Journal {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InputError('UP-REPORT-JOURNAL', `cannot read journal ${file}: ${(error as Error).message}`, {
      location: { file },
      hint: 'pass the journal.json that uproot migrate wrote under .uproot/<cluster>/',
    });
  }
  const parsed = journalSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(
      'UP-REPORT-JOURNAL',
      `${file} is not an uproot journal: ${issue?.message ?? 'invalid'}`,
      {
        location: { file, field: issue?.path.join('.') },
        hint: 'pass the journal.json that uproot migrate wrote under .uproot/<cluster>/',
      },
    );
  }
  return parsed.data;
}
