import { gapsOf, overlapsOf, totalLength, type TimeSpan } from './intervals.js';

/** One manager process owning one logical controller for a while. */
export interface OwnershipInterval {
  readonly identity: string;
  readonly component: string;
  /** The controller's name in that manager (`service`, `service-lb-controller`, ...). */
  readonly controllerName: string;
  readonly from: number;
  readonly to: number;
  /** Still owning at the end of the window (no stop seen). */
  readonly open: boolean;
}

/** Who owned a controller when, where two owned it at once, and where nobody did (all within the window). */
interface ControllerTimeline {
  readonly intervals: readonly OwnershipInterval[];
  readonly overlaps: readonly {
    readonly from: number;
    readonly to: number;
    readonly identities: readonly string[];
  }[];
  readonly gaps: readonly TimeSpan[];
}

/** A controller that ran in the window: its figures count from when it first ran, never before. */
export interface RunningControllerReport extends ControllerTimeline {
  readonly state: 'running';
  /** When some manager first ran it in the window; before that it was not yet running, not leaderless. */
  readonly firstRunAt: number;
  readonly overlapSeconds: number;
  readonly maxGapSeconds: number;
}

/**
 * A controller that did not run in the window: `not-configured` when no manager is configured to run it
 * (route without --configure-cloud-routes in either): no owner by design; `not-yet-running` otherwise (its
 * manager has not started it yet). Neither has figures: an absence that never ended is not a gap.
 */
export interface IdleControllerReport extends ControllerTimeline {
  readonly state: 'not-yet-running' | 'not-configured';
  readonly intervals: readonly [];
  readonly overlaps: readonly [];
  readonly gaps: readonly [];
}

export type ControllerOwnershipReport = RunningControllerReport | IdleControllerReport;
export type ControllerState = ControllerOwnershipReport['state'];

/** Per logical controller: who owned it when, where two owned it at once, and where nobody did. */
export interface OwnershipReport {
  readonly window: TimeSpan;
  readonly controllers: Readonly<Record<string, ControllerOwnershipReport>>;
}

/**
 * Builds the report from ownership intervals grouped by logical controller, clipped to `window`. A
 * controller's gaps are measured from its first run in the window to the window's end; `notConfigured` names
 * the controllers no manager is configured to run (shown as such when nobody ran them).
 */
export function ownershipReport(
  intervalsByController: ReadonlyMap<string, readonly OwnershipInterval[]>,
  window: TimeSpan,
  notConfigured: ReadonlySet<string> = new Set(),
): OwnershipReport {
  const controllers: Record<string, ControllerOwnershipReport> = {};
  for (const [name, raw] of [...intervalsByController].sort(([a], [b]) => a.localeCompare(b))) {
    controllers[name] = controllerReport(raw, window, notConfigured.has(name));
  }
  return { window, controllers };
}

function controllerReport(
  raw: readonly OwnershipInterval[],
  window: TimeSpan,
  notConfigured: boolean,
): ControllerOwnershipReport {
  const clipped = raw.map((i) => ({
    ...i,
    from: Math.max(i.from, window.from),
    to: Math.min(i.to, window.to),
  }));
  // A run that started and stopped at one instant (a manager replaced the moment the window began, on a
  // virtual clock that had not moved) still ran: the controller counts from then, and the time until the next
  // run is a gap, not "not yet running".
  const firstRun = Math.min(...clipped.filter((i) => i.to >= i.from).map((i) => i.from));
  const intervals = clipped
    .filter((i) => i.to > i.from)
    // A total order, so the report does not depend on the order the intervals came in.
    .sort(
      (a, b) =>
        a.from - b.from ||
        a.identity.localeCompare(b.identity) ||
        a.to - b.to ||
        a.controllerName.localeCompare(b.controllerName) ||
        Number(a.open) - Number(b.open),
    );
  if (!Number.isFinite(firstRun)) {
    return {
      state: notConfigured ? 'not-configured' : 'not-yet-running',
      intervals: [],
      overlaps: [],
      gaps: [],
    };
  }
  const overlaps = overlapsOf(intervals);
  const gaps = gapsOf(intervals, { from: firstRun, to: window.to });
  return {
    state: 'running',
    firstRunAt: firstRun,
    intervals,
    overlaps,
    overlapSeconds: seconds(totalLength(overlaps)),
    gaps,
    maxGapSeconds: seconds(Math.max(0, ...gaps.map((g) => g.to - g.from))),
  };
}

/** A controller's figures, when it has any (it ran in the window). */
export function controllerFigures(
  c: ControllerOwnershipReport | undefined,
): { readonly overlapSeconds: number; readonly maxGapSeconds: number } | undefined {
  return c?.state === 'running'
    ? { overlapSeconds: c.overlapSeconds, maxGapSeconds: c.maxGapSeconds }
    : undefined;
}

/** The report as JSON for people and files: times as ISO 8601, durations in seconds. */
export function ownershipReportToJson(report: OwnershipReport): unknown {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    window: { from: iso(report.window.from), to: iso(report.window.to) },
    controllers: Object.fromEntries(
      Object.entries(report.controllers).map(([name, c]) => [
        name,
        {
          intervals: c.intervals.map((i) => ({
            identity: i.identity,
            component: i.component,
            controller: i.controllerName,
            from: iso(i.from),
            to: iso(i.to),
            ...(i.open ? { open: true } : {}),
          })),
          state: c.state,
          ...(c.state === 'running'
            ? {
                firstRunAt: iso(c.firstRunAt),
                overlapSeconds: c.overlapSeconds,
                maxGapSeconds: c.maxGapSeconds,
              }
            : {}),
          overlaps: c.overlaps.map((o) => ({ from: iso(o.from), to: iso(o.to), identities: o.identities })),
          gaps: c.gaps.map((g) => ({ from: iso(g.from), to: iso(g.to), seconds: seconds(g.to - g.from) })),
        },
      ]),
    ),
  };
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}
