/**
 * One account of a run: the rows every output prints (the demo's text and JSON, `uproot report`'s HTML,
 * Markdown and JSON, `uproot sandbox ledger`), computed here once from an OwnershipReport, whichever side
 * made it (the twin's ledger, or the leases seen from outside).
 */
import type { OwnershipReport } from './ownership-report.js';

/** The controllers Leader Migration moves from the KCM to the CCM, in the order every output lists them. */
export const MIGRATED_CONTROLLERS = ['route', 'service', 'cloud-node-lifecycle', 'nodeipam'] as const;
/** nodeipam moves only where the CCM runs it (a provider that implements it); the others always do. */
const MOVES_ONLY_IF_CCM_RAN = new Set<string>(['nodeipam']);
const CCM = 'cloud-controller-manager';

interface RowBase {
  /** The one name of the controller (logicalControllerName). */
  readonly name: string;
  /** One of the controllers Leader Migration moves. */
  readonly migrated: boolean;
}

export type ControllerRow =
  | (RowBase & {
      readonly state: 'running';
      readonly overlapSeconds: number;
      readonly maxGapSeconds: number;
      /** The promise's bound for it, when the figures come from the leases (promise-figures.ts). */
      readonly boundSeconds?: number;
      /**
       * The longest handover no uproot process watched (it was not running): an upper bound, not judged
       * (promise-figures.ts unobservedGaps). Absent when every handover was watched.
       */
      readonly unobservedGapSeconds?: number;
    })
  | (RowBase & { readonly state: 'not-yet-running' | 'not-configured' });

/** The words every output adds to a gap figure when a handover of that controller was not watched. */
export function unwatchedGapText(row: { readonly unobservedGapSeconds?: number }): string {
  return row.unobservedGapSeconds === undefined
    ? ''
    : ` (and a handover uproot did not watch, at most ${row.unobservedGapSeconds} s)`;
}

/** The words every output uses for a controller that has no figures. */
export const NOT_CONFIGURED_TEXT = 'not run: neither manager is configured to run it';
export const NOT_YET_RUNNING_TEXT = 'not yet running';

/** The rows: the migrated controllers first (in MIGRATED_CONTROLLERS order), then the others alphabetically. */
export function controllerRows(report: OwnershipReport): ControllerRow[] {
  const rows = Object.entries(report.controllers).map(([name, c]): ControllerRow => {
    const migrated = isMigratedController(
      name,
      c.intervals.map((i) => i.component),
    );
    return c.state === 'running'
      ? { name, migrated, state: c.state, overlapSeconds: c.overlapSeconds, maxGapSeconds: c.maxGapSeconds }
      : { name, migrated, state: c.state };
  });
  return orderRows(rows);
}

/** Whether a controller is one Leader Migration moves, given the managers that ran it. */
export function isMigratedController(name: string, ranBy: readonly string[]): boolean {
  return (
    (MIGRATED_CONTROLLERS as readonly string[]).includes(name) &&
    (!MOVES_ONLY_IF_CCM_RAN.has(name) || ranBy.includes(CCM))
  );
}

/** The order every output lists rows in: the migrated controllers first, then the others alphabetically. */
export function orderRows<R extends ControllerRow>(rows: readonly R[]): R[] {
  const rank = (r: ControllerRow): number =>
    r.migrated ? (MIGRATED_CONTROLLERS as readonly string[]).indexOf(r.name) : MIGRATED_CONTROLLERS.length;
  return [...rows].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** The figures of a row, or the words for why it has none. */
export function controllerRowText(row: ControllerRow): string {
  switch (row.state) {
    case 'running':
      return `overlap ${row.overlapSeconds} s, largest gap ${row.maxGapSeconds} s${unwatchedGapText(row)}`;
    case 'not-configured':
      return NOT_CONFIGURED_TEXT;
    case 'not-yet-running':
      return NOT_YET_RUNNING_TEXT;
  }
}

/** The JSON record of the rows, keyed by name in row order (`controllers.<name>.overlapSeconds`, ...). */
export type ControllerRowsJson = Record<
  string,
  { readonly state: ControllerRow['state']; readonly migrated: boolean } & Partial<
    Readonly<Record<'overlapSeconds' | 'maxGapSeconds' | 'boundSeconds' | 'unobservedGapSeconds', number>>
  >
>;

export function controllerRowsJson(rows: readonly ControllerRow[]): ControllerRowsJson {
  return Object.fromEntries(rows.map(({ name, ...rest }) => [name, rest]));
}
