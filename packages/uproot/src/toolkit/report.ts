/**
 * `uproot report` as a library call: read a migration journal (a journal file, or the only local copy under
 * the state directory) and render it as HTML, Markdown or the JSON report model: steps, timings, gate results
 * and the ownership timeline. Offline; reads no cluster.
 */
import { readFileSync } from 'node:fs';
import { mirroredClusters } from '../adapters/files/journal-mirror.js';
import { join, resolve } from 'node:path';
import { InputError } from '../errors/index.js';
import { journalSchema, type Journal } from '../engine/journal/journal-schema.js';
import {
  plannedNotConfigured,
  promiseFigures,
  promiseRows,
  type OwnershipReport,
} from '../core/ownership/index.js';
import {
  buildReportModel,
  journalOwnership,
  renderReportHtml,
  renderReportMarkdown,
  type ReportModel,
} from '../report/index.js';

export type ReportFormat = 'html' | 'md' | 'json';

export interface ReportOptions {
  readonly format?: ReportFormat;
  /** A journal file (default: the only one under `stateDir`). */
  readonly journal?: string;
  /** A journal already read (a fleet reads each cluster's from Rancher's local cluster), instead of a file. */
  readonly fromJournal?: Journal;
  /** Where uproot keeps its local journal copies (default .uproot). */
  readonly stateDir?: string;
  /** Relative paths resolve against it (default process.cwd()). */
  readonly cwd?: string;
  /** The time the report is rendered at (default now). */
  readonly now?: number;
  /**
   * Who ran each controller when, if the caller knows better than the journal's lease records: a twin's
   * ledger (analyzeLedger), or the lease-based report of a live cluster. Its rows (controllerRows) are what
   * the report prints. Default: journalOwnership(journal), inferred from the journal's lease timeline.
   */
  readonly ownership?: OwnershipReport;
}

export interface ReportResult {
  readonly text: string;
  readonly model: ReportModel;
  readonly journal: Journal;
}

export async function report(options: ReportOptions = {}): Promise<ReportResult> {
  const cwd = options.cwd ?? process.cwd();
  const journal =
    options.fromJournal ??
    readJournal(
      options.journal
        ? resolve(cwd, options.journal)
        : findJournal(resolve(cwd, options.stateDir ?? '.uproot')),
    );
  const now = options.now ?? Date.now();
  const ownership = options.ownership ?? journalOwnership(journal);
  // Given an ownership report (a twin's ledger), its rows; otherwise the promise's figures from the journal's
  // lease observations, the figures `uproot status` shows for a live cluster.
  const rows = options.ownership
    ? undefined
    : promiseRows(
        promiseFigures(journal.leaseTimeline, { history: journal, now: ownership?.window.to ?? now }),
        plannedNotConfigured(journal.plan),
      );
  const model = buildReportModel(journal, {
    ...(ownership ? { ownership } : {}),
    ...(rows && rows.length > 0 ? { rows } : {}),
    now,
  });
  const format = options.format ?? 'html';
  const text =
    format === 'html'
      ? renderReportHtml(model)
      : format === 'md'
        ? renderReportMarkdown(model)
        : `${JSON.stringify(model, null, 2)}\n`;
  return { text, model, journal };
}

function findJournal(stateDir: string): string {
  const dirs = mirroredClusters(stateDir);
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
