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

export interface ControllerOwnershipReport {
  readonly intervals: readonly OwnershipInterval[];
  readonly overlaps: readonly {
    readonly from: number;
    readonly to: number;
    readonly identities: readonly string[];
  }[];
  readonly overlapSeconds: number;
  readonly gaps: readonly TimeSpan[];
  readonly maxGapSeconds: number;
  /**
   * True when no manager is configured to run it (route without --configure-cloud-routes in either): it
   * has no owner by design, and no gap.
   */
  readonly notConfigured?: true;
}

/** Per logical controller: who owned it when, where two owned it at once, and where nobody did. */
export interface OwnershipReport {
  readonly window: TimeSpan;
  readonly controllers: Readonly<Record<string, ControllerOwnershipReport>>;
}

/** Builds the report from ownership intervals grouped by logical controller, clipped to `window`. */
export function ownershipReport(
  intervalsByController: ReadonlyMap<string, readonly OwnershipInterval[]>,
  window: TimeSpan,
  notConfigured: ReadonlySet<string> = new Set(),
): OwnershipReport {
  const controllers: Record<string, ControllerOwnershipReport> = {};
  for (const [name, raw] of [...intervalsByController].sort(([a], [b]) => a.localeCompare(b))) {
    const intervals = raw
      .map((i) => ({ ...i, from: Math.max(i.from, window.from), to: Math.min(i.to, window.to) }))
      .filter((i) => i.to > i.from)
      .sort((a, b) => a.from - b.from || a.identity.localeCompare(b.identity));
    const overlaps = overlapsOf(intervals);
    const unconfigured = notConfigured.has(name) && intervals.length === 0;
    const gaps = unconfigured ? [] : gapsOf(intervals, window);
    controllers[name] = {
      intervals,
      overlaps,
      overlapSeconds: seconds(totalLength(overlaps)),
      gaps,
      maxGapSeconds: seconds(Math.max(0, ...gaps.map((g) => g.to - g.from))),
      ...(unconfigured ? { notConfigured: true as const } : {}),
    };
  }
  return { window, controllers };
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
          overlapSeconds: c.overlapSeconds,
          overlaps: c.overlaps.map((o) => ({ from: iso(o.from), to: iso(o.to), identities: o.identities })),
          maxGapSeconds: c.maxGapSeconds,
          ...(c.notConfigured ? { notConfigured: true } : {}),
          gaps: c.gaps.map((g) => ({ from: iso(g.from), to: iso(g.to), seconds: seconds(g.to - g.from) })),
        },
      ]),
    ),
  };
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}
