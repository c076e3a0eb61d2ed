import {
  analyzeLedger,
  controllerRows,
  controllerRowsJson,
  ownershipReportToJson,
  type ControllerRow,
  type ControllerRowsJson,
  type Ledger,
  type LedgerAnalysis,
} from 'uproot/core';
import type { JourneyRestarts } from './nodes/restart-count.js';

/** Per logical controller, from the twin's ownership ledger: the figures `uproot sandbox ledger` reports. */
export interface LedgerReport {
  /** The rows every output prints (uproot/core controllerRows): migrated controllers first, then the others. */
  readonly rows: readonly ControllerRow[];
  /** The rows by name, in row order (`controllers.<name>.overlapSeconds`, `.maxGapSeconds`, `.state`). */
  readonly controllers: ControllerRowsJson;
  /** The full ownership report (intervals, overlaps, gaps) as JSON. */
  readonly detail: unknown;
  /** What the machines went through: their restarts (nodes/restart-count.ts). */
  readonly journey: { readonly restarts: JourneyRestarts };
}

/** The ledger analysed from the first recorded action (or `from`, if later) to `to`. */
export function ledgerAnalysis(ledger: Ledger, from: number, to: number): LedgerAnalysis {
  const first = ledger.entries.reduce((min, e) => Math.min(min, e.time), Number.POSITIVE_INFINITY);
  const window = { from: Number.isFinite(first) ? Math.max(from, first) : from, to: Math.max(to, from) };
  return analyzeLedger(ledger.entries, { window });
}

/** The rows of an analysis (one account: the demo's text, JSON and report print the same), and the restarts. */
export function ledgerReport(
  analysis: LedgerAnalysis,
  restarts: JourneyRestarts = { nodes: [], maxByRole: {} },
): LedgerReport {
  const rows = controllerRows(analysis);
  return {
    rows,
    controllers: controllerRowsJson(rows),
    detail: ownershipReportToJson(analysis),
    journey: { restarts },
  };
}
