/**
 * uproot's promise in figures, per logical controller, from the lease observations alone (what a live
 * cluster shows): `overlapSeconds`, the time two manager processes may both have run it (each holder living
 * until another is seen: never less than the truth), and `maxGapSeconds`, its longest handover, from the old
 * owner's last renewal to the new owner's acquisition (never less than the truth either). A controller counts
 * from when it first runs: before that it is not yet running, not in a gap. Each is judged against the bound
 * of the managers that ran it (promise-bound.ts).
 */
import type { ManagerComponent } from '../leader-migration/index.js';
import { gapsOf, totalLength, type TimeSpan } from './intervals.js';
import type { LeaseRecord } from './lease-record.js';
import type { ControllerOwnershipReport } from './ownership-report.js';
import { isMigratedController, orderRows, type ControllerRow } from './controller-rows.js';
import { inferProfiledOwnership, type OwnershipEvidence } from './profiled-inference.js';
import { componentBounds, controllerBound, type PromiseBound } from './promise-bound.js';
import { HALF_RETRY_PERIOD_MS, unobservedHandovers } from './handover-observations.js';

export interface ControllerPromise {
  /** The logical controller (`service`, whatever a manager calls it). */
  readonly controller: string;
  /** No manager process ran it in the timeline: not yet running, or not configured anywhere. */
  readonly ran: boolean;
  readonly overlapSeconds: number;
  readonly overlaps: readonly {
    readonly from: number;
    readonly to: number;
    readonly identities: readonly string[];
  }[];
  readonly maxGapSeconds: number;
  /** Each handover judged: from the last renewal of one owner to the acquisition of the next. */
  readonly gaps: readonly TimeSpan[];
  /**
   * Handovers no uproot process watched (handover-observations.ts unobservedHandovers): their figure only
   * bounds the gap from above, so they are reported beside the judged ones and stop nothing.
   */
  readonly unobservedGaps: readonly TimeSpan[];
  /** The managers that ran it, whose flags give its bound. */
  readonly components: readonly ManagerComponent[];
  readonly bound: PromiseBound;
}

export interface PromiseFigures {
  /** The span judged; overlaps are clipped to it, a gap counts whole when any of it falls inside. */
  readonly window: TimeSpan;
  readonly controllers: readonly ControllerPromise[];
}

export type PromiseBreach =
  | {
      readonly kind: 'overlap';
      readonly controller: string;
      readonly seconds: number;
      readonly from: number;
      readonly to: number;
      readonly identities: readonly string[];
    }
  | {
      readonly kind: 'gap';
      readonly controller: string;
      readonly seconds: number;
      readonly from: number;
      readonly to: number;
      readonly bound: PromiseBound;
    };

const MANAGERS: readonly ManagerComponent[] = ['kube-controller-manager', 'cloud-controller-manager'];

/**
 * The handovers among a controller's owners: the spans inside its ownership where nobody owned it. Before
 * it first runs and after it last ran are not handovers.
 */
export function handoverGaps(owned: readonly TimeSpan[]): TimeSpan[] {
  if (owned.length === 0) return [];
  const from = Math.min(...owned.map((s) => s.from));
  const to = Math.max(...owned.map((s) => s.to));
  return gapsOf(
    owned.map((s) => ({ ...s, identity: '' })),
    { from, to },
  );
}

const intersects = (a: TimeSpan, b: TimeSpan): boolean => a.from < b.to && a.to > b.from;
const seconds = (ms: number): number => Math.round(ms) / 1000;

/**
 * The figures of every followed controller over `window` (default: the whole timeline up to
 * `evidence.now`). Undefined when the timeline holds no observation.
 */
export function promiseFigures(
  timeline: readonly LeaseRecord[],
  evidence: OwnershipEvidence,
  window?: TimeSpan,
): PromiseFigures | undefined {
  const overlapView = inferProfiledOwnership(timeline, evidence);
  const handoverView = inferProfiledOwnership(timeline, evidence, undefined, 'handover');
  if (!overlapView || !handoverView) return undefined;
  // The handover view's window starts at the earliest acquisition, before the first look.
  const judged = window ?? handoverView.report.window;
  const bounds = componentBounds(evidence.pods);
  const unwatched = unobservedHandovers(timeline);
  const controllers = Object.entries(handoverView.report.controllers).map(([controller, handover]) =>
    controllerPromise(
      controller,
      { handover, overlap: overlapView.report.controllers[controller], unwatched },
      judged,
      bounds,
    ),
  );
  return { window: judged, controllers };
}

/** A gap whose start (the old owner's end) falls in a handover nobody watched. */
const startsUnwatched = (gap: TimeSpan, unwatched: readonly TimeSpan[]): boolean =>
  unwatched.some((u) => u.from <= gap.from && gap.from <= u.to);

function controllerPromise(
  controller: string,
  views: {
    readonly handover: ControllerOwnershipReport;
    readonly overlap: ControllerOwnershipReport | undefined;
    readonly unwatched: readonly TimeSpan[];
  },
  window: TimeSpan,
  bounds: ReturnType<typeof componentBounds>,
): ControllerPromise {
  const { handover, overlap, unwatched } = views;
  const all = handoverGaps(handover.intervals).filter((g) => intersects(g, window));
  const gaps: TimeSpan[] = [];
  const unobservedGaps: TimeSpan[] = [];
  for (const g of all) (startsUnwatched(g, unwatched) ? unobservedGaps : gaps).push(g);
  const overlaps = (overlap?.overlaps ?? [])
    .filter((o) => intersects(o, window))
    .map((o) => ({ ...o, from: Math.max(o.from, window.from), to: Math.min(o.to, window.to) }));
  const ranBy = new Set([...handover.intervals, ...(overlap?.intervals ?? [])].map((i) => i.component));
  const components = MANAGERS.filter((m) => ranBy.has(m));
  return {
    controller,
    ran: handover.intervals.length > 0,
    overlapSeconds: seconds(totalLength(overlaps)),
    overlaps,
    maxGapSeconds: seconds(Math.max(0, ...gaps.map((g) => g.to - g.from))),
    gaps,
    unobservedGaps,
    components,
    bound: controllerBound(components, bounds),
  };
}

/**
 * Where the figures break the promise: any overlap at all, and any handover the leases prove longer than the
 * controller's bound. A handover's figure is read from half a RetryPeriod after the old holder's last renewal
 * (within RetryPeriod/2 of the truth); it is a breach when even the shortest reading (the holder lived a whole
 * RetryPeriod past its last renewal) is past the bound, so the estimate's own error never stops a run.
 * Breaches that ended by `acceptedUntil` (ms; a person acknowledged them) are left out.
 */
export function promiseBreaches(figures: PromiseFigures, acceptedUntil?: number): PromiseBreach[] {
  const open = (s: TimeSpan): boolean => acceptedUntil === undefined || s.to > acceptedUntil;
  return figures.controllers.flatMap((c): PromiseBreach[] => [
    ...c.overlaps.filter(open).map((o) => ({
      kind: 'overlap' as const,
      controller: c.controller,
      seconds: seconds(o.to - o.from),
      from: o.from,
      to: o.to,
      identities: o.identities,
    })),
    ...c.gaps
      .filter((g) => open(g) && g.to - g.from - HALF_RETRY_PERIOD_MS > c.bound.seconds * 1000)
      .map((g) => ({
        kind: 'gap' as const,
        controller: c.controller,
        seconds: seconds(g.to - g.from),
        from: g.from,
        to: g.to,
        bound: c.bound,
      })),
  ]);
}

/**
 * The lease-based figures as the one account's rows (controller-rows.ts), each with its bound: status and
 * report print these on a live cluster. A controller no process ran is `not-configured` when the plan runs
 * it in neither manager, else `not-yet-running`.
 */
export function promiseRows(
  figures: PromiseFigures | undefined,
  notConfigured: ReadonlySet<string> = new Set(),
): ControllerRow[] {
  if (!figures) return [];
  return orderRows(
    figures.controllers.map((c): ControllerRow => {
      const migrated = isMigratedController(c.controller, c.components);
      // The plan's word wins: a controller it runs in neither manager is not configured, whatever the
      // leases' holders could have run (they cannot show that a holder skipped a controller).
      if (!c.ran || notConfigured.has(c.controller))
        return {
          name: c.controller,
          migrated,
          state: notConfigured.has(c.controller) ? 'not-configured' : 'not-yet-running',
        };
      return {
        name: c.controller,
        migrated,
        state: 'running',
        overlapSeconds: c.overlapSeconds,
        maxGapSeconds: c.maxGapSeconds,
        boundSeconds: c.bound.seconds,
        ...(c.unobservedGaps.length > 0
          ? { unobservedGapSeconds: seconds(Math.max(...c.unobservedGaps.map((g) => g.to - g.from))) }
          : {}),
      };
    }),
  );
}
