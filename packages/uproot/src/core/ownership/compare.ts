import type { OwnershipReport } from './ownership-report.js';

/** A span in which two reports name different owners for a controller. */
export interface OwnershipDisagreement {
  readonly controller: string;
  readonly from: number;
  readonly to: number;
  readonly expected: readonly string[];
  readonly actual: readonly string[];
  /** True when it ends within the tolerance after an ownership change in `expected` (observation lag). */
  readonly explained: boolean;
}

/**
 * Compares two ownership reports over the expected report's window, e.g. the ledger's ground truth with the
 * timeline inferred from leases. An outside observer lags: it sees a new holder at its next look, and a dead
 * holder until its lease expires. Disagreements that end within `toleranceMs` of a change of owner in
 * `expected` are marked explained; the others point at a real difference.
 */
export function compareOwnership(
  expected: OwnershipReport,
  actual: OwnershipReport,
  options: { readonly toleranceMs: number; readonly controllers?: readonly string[] },
): OwnershipDisagreement[] {
  const { window } = expected;
  const names = options.controllers ?? Object.keys(expected.controllers);
  const out: OwnershipDisagreement[] = [];
  for (const controller of names) {
    const e = expected.controllers[controller]?.intervals ?? [];
    const a = actual.controllers[controller]?.intervals ?? [];
    const changes = [...new Set(e.flatMap((i) => [i.from, i.to]))].sort((x, y) => x - y);
    const points = [...new Set([window.from, window.to, ...changes, ...a.flatMap((i) => [i.from, i.to])])]
      .filter((t) => t >= window.from && t <= window.to)
      .sort((x, y) => x - y);
    const ownersAt = (list: typeof e, t: number): string[] =>
      [...new Set(list.filter((i) => i.from <= t && t < i.to).map((i) => i.identity))].sort();
    let open: { from: number; to: number; expected: string[]; actual: string[] } | undefined;
    const flush = (): void => {
      if (!open) return;
      const start = open.from;
      const lastChange = changes.filter((c) => c <= start).pop();
      const explained = lastChange !== undefined && open.to - lastChange <= options.toleranceMs;
      out.push({ controller, ...open, explained });
      open = undefined;
    };
    for (let i = 0; i + 1 < points.length; i++) {
      const from = points[i]!;
      const to = points[i + 1]!;
      const mid = (from + to) / 2;
      const exp = ownersAt(e, mid);
      const act = ownersAt(a, mid);
      if (exp.join() === act.join()) {
        flush();
        continue;
      }
      if (
        open &&
        open.to === from &&
        open.expected.join() === exp.join() &&
        open.actual.join() === act.join()
      )
        open.to = to;
      else {
        flush();
        open = { from, to, expected: exp, actual: act };
      }
    }
    flush();
  }
  return out;
}
