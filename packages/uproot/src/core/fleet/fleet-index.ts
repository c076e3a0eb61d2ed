/**
 * The fleet report's index and the fleet plan's index as data: one row per cluster, built from each cluster's
 * own report or plan (which the toolkit renders beside it), so the index links to them.
 */

import type { ControllerRow } from '../ownership/index.js';

export interface FleetReportRowInput {
  readonly cluster: string;
  /** The verdict of its own report (completed, failed, in-progress, rolled-back, not-started), or why none. */
  readonly state: string;
  readonly stepsVerified: number;
  readonly stepsTotal: number;
  /** Its report's rows (controllerRows). */
  readonly controllers: readonly ControllerRow[];
  /** Journal creation to the last step's end (ms since the epoch). */
  readonly startedAt?: number;
  readonly finishedAt?: number;
  /** Its own report, relative to the index. */
  readonly link?: string;
  readonly note?: string;
}

export interface FleetReportRow extends Omit<
  FleetReportRowInput,
  'controllers' | 'startedAt' | 'finishedAt'
> {
  /** The largest overlap of any migrated controller (must be 0). */
  readonly overlapSeconds?: number;
  /** The largest gap of any migrated controller that some manager is configured to run. */
  readonly maxGapSeconds?: number;
  readonly durationSeconds?: number;
}

export interface FleetReportModel {
  readonly title: string;
  readonly generatedAt: string;
  readonly rows: readonly FleetReportRow[];
  readonly totals: {
    readonly clusters: number;
    readonly completed: number;
    readonly failed: number;
    /** The largest overlap across the fleet: the one figure that must be 0. */
    readonly maxOverlapSeconds: number;
  };
}

const round = (n: number): number => Math.round(n * 10) / 10;

export function fleetReportRow(input: FleetReportRowInput): FleetReportRow {
  // Figures exist only for controllers that ran; the others are not configured or not yet running.
  const ran = input.controllers.flatMap((c) => (c.migrated && c.state === 'running' ? [c] : []));
  const overlap = ran.length ? Math.max(...ran.map((c) => c.overlapSeconds)) : undefined;
  const gap = ran.length ? Math.max(...ran.map((c) => c.maxGapSeconds)) : undefined;
  const duration =
    input.startedAt !== undefined && input.finishedAt !== undefined && input.finishedAt >= input.startedAt
      ? round((input.finishedAt - input.startedAt) / 1000)
      : undefined;
  const { controllers: _c, startedAt: _s, finishedAt: _f, ...rest } = input;
  return {
    ...rest,
    ...(overlap !== undefined ? { overlapSeconds: overlap } : {}),
    ...(gap !== undefined ? { maxGapSeconds: gap } : {}),
    ...(duration !== undefined ? { durationSeconds: duration } : {}),
  };
}

export function fleetReportModel(rows: readonly FleetReportRowInput[], now: number): FleetReportModel {
  const built = rows.map(fleetReportRow);
  return {
    title: `uproot fleet report: ${built.length} cluster${built.length === 1 ? '' : 's'}`,
    generatedAt: new Date(now).toISOString(),
    rows: built,
    totals: {
      clusters: built.length,
      completed: built.filter((r) => r.state === 'completed').length,
      failed: built.filter((r) => r.state === 'failed').length,
      maxOverlapSeconds: Math.max(0, ...built.map((r) => r.overlapSeconds ?? 0)),
    },
  };
}

/** One cluster in `uproot fleet plan --out DIR`'s index. */
export type FleetPlanRow =
  | {
      readonly cluster: string;
      readonly type: 'planned';
      /** Its plan directory, relative to the index. */
      readonly dir: string;
      readonly outcome: string;
      readonly steps: number;
      readonly kubernetes: { readonly current: string; readonly target: string };
    }
  | { readonly cluster: string; readonly type: 'error'; readonly code: string; readonly message: string };

export const FLEET_PLAN_INDEX_VERSION = 'uproot.dev/fleet-plan/v1';

export function fleetPlanIndex(rows: readonly FleetPlanRow[]): {
  readonly schemaVersion: typeof FLEET_PLAN_INDEX_VERSION;
  readonly clusters: readonly FleetPlanRow[];
} {
  return { schemaVersion: FLEET_PLAN_INDEX_VERSION, clusters: rows };
}

/** INDEX.md of a fleet plan directory. */
export function renderFleetPlanIndex(rows: readonly FleetPlanRow[]): string {
  const lines = [
    '# uproot fleet plan',
    '',
    '| cluster | plan | steps | Kubernetes |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) =>
      r.type === 'planned'
        ? `| ${r.cluster} | [${r.outcome}](${r.dir}/RUNBOOK.md) | ${r.steps} | ${r.kubernetes.current} → ${r.kubernetes.target} |`
        : `| ${r.cluster} | error ${r.code}: ${r.message.replace(/\|/g, '\\|')} | — | — |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
