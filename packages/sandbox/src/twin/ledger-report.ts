import { analyzeLedger, ownershipReportToJson, type Ledger } from 'uproot/core';
import type { JourneyRestarts } from './nodes/restart-count.js';

/** Per logical controller, from the twin's ownership ledger: the figures `uproot sandbox rehearse` reports. */
export interface LedgerReport {
  /** Per logical controller (`service`, `route`, `cloud-node-lifecycle`, ...). */
  readonly controllers: Readonly<
    Record<
      string,
      { readonly overlapSeconds: number; readonly maxGapSeconds: number; readonly notConfigured?: true }
    >
  >;
  /** The full ownership report (intervals, overlaps, gaps) as JSON. */
  readonly detail: unknown;
  /** What the machines went through: their restarts (nodes/restart-count.ts). */
  readonly journey: { readonly restarts: JourneyRestarts };
}

/** The ledger analysed from the first recorded action (or `from`, if later) to `to`. */
export function ledgerReport(
  ledger: Ledger,
  from: number,
  to: number,
  restarts: JourneyRestarts = { nodes: [], maxByRole: {} },
): LedgerReport {
  const first = ledger.entries.reduce((min, e) => Math.min(min, e.time), Number.POSITIVE_INFINITY);
  const window = { from: Number.isFinite(first) ? Math.max(from, first) : from, to: Math.max(to, from) };
  const analysis = analyzeLedger(ledger.entries, { window });
  const controllers: Record<string, { overlapSeconds: number; maxGapSeconds: number; notConfigured?: true }> =
    {};
  for (const [name, c] of Object.entries(analysis.controllers)) {
    controllers[name] = {
      overlapSeconds: c.overlapSeconds,
      maxGapSeconds: c.maxGapSeconds,
      ...(c.notConfigured ? { notConfigured: true as const } : {}),
    };
  }
  return { controllers, detail: ownershipReportToJson(analysis), journey: { restarts } };
}
