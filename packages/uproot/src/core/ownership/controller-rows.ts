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
  | (RowBase & { readonly state: 'running'; readonly overlapSeconds: number; readonly maxGapSeconds: number })
  | (RowBase & { readonly state: 'not-yet-running' | 'not-configured' });

/** The words every output uses for a controller that has no figures. */
export const NOT_CONFIGURED_TEXT = 'not run: neither manager is configured to run it';
export const NOT_YET_RUNNING_TEXT = 'not yet running';

/** The rows: the migrated controllers first (in MIGRATED_CONTROLLERS order), then the others alphabetically. */
export function controllerRows(report: OwnershipReport): ControllerRow[] {
  const rows = Object.entries(report.controllers).map(([name, c]): ControllerRow => {
    const migrated =
      (MIGRATED_CONTROLLERS as readonly string[]).includes(name) &&
      (!MOVES_ONLY_IF_CCM_RAN.has(name) || c.intervals.some((i) => i.component === CCM));
    return c.state === 'running'
      ? { name, migrated, state: c.state, overlapSeconds: c.overlapSeconds, maxGapSeconds: c.maxGapSeconds }
      : { name, migrated, state: c.state };
  });
  const rank = (r: ControllerRow): number =>
    r.migrated ? (MIGRATED_CONTROLLERS as readonly string[]).indexOf(r.name) : MIGRATED_CONTROLLERS.length;
  return rows.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** The figures of a row, or the words for why it has none. */
export function controllerRowText(row: ControllerRow): string {
  switch (row.state) {
    case 'running':
      return `overlap ${row.overlapSeconds} s, largest gap ${row.maxGapSeconds} s`;
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
    Readonly<Record<'overlapSeconds' | 'maxGapSeconds', number>>
  >
>;

export function controllerRowsJson(rows: readonly ControllerRow[]): ControllerRowsJson {
  return Object.fromEntries(rows.map(({ name, ...rest }) => [name, rest]));
}
