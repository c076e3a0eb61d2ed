import { logicalControllerName } from '../leader-migration/index.js';
import type { TimeSpan } from './intervals.js';
import { ownershipReport, type OwnershipInterval, type OwnershipReport } from './ownership-report.js';

/**
 * One line of the ownership ledger: a controller in a manager process started, stopped, or did something.
 * `action` is `started`, `stopped`, `not-configured` (the process does not run that controller at all, e.g.
 * route without --configure-cloud-routes), or a free-form description of the work
 * (`ensure-load-balancer default/web`).
 */
export interface LedgerEntry {
  /** The controller's name in its manager (`service`, `service-lb-controller`, ...). */
  readonly controller: string;
  readonly component: string;
  /** The manager process (its lease identity). */
  readonly identity: string;
  readonly time: number;
  readonly action: string;
}

/** An append-only ledger; the recorder controllers write to. */
export interface Ledger {
  readonly entries: readonly LedgerEntry[];
  record(entry: LedgerEntry): void;
}

export function createLedger(): Ledger {
  const entries: LedgerEntry[] = [];
  return { entries, record: (entry) => void entries.push(entry) };
}

// The one name per controller lives with the controller name tables (election/model/controller-names.ts).
export { logicalControllerName };

export interface LedgerAnalysisOptions {
  /** Default: from the first to the last entry. */
  readonly window?: TimeSpan;
  /** Only these logical controllers (default: every one in the ledger). */
  readonly controllers?: readonly string[];
}

/** The ledger action of a manager process that is not configured to run a controller. */
export const NOT_CONFIGURED = 'not-configured';

export interface LedgerAnalysis extends OwnershipReport {
  /** Actions recorded by an identity that had not started (or had stopped) that controller: a recorder bug. */
  readonly strayActions: readonly LedgerEntry[];
}

/**
 * Ownership from the ledger: a controller is owned by a process from its `started` to its `stopped` (or the
 * window's end). Overlaps are times when two different processes owned the same logical controller.
 */
export function analyzeLedger(
  entries: readonly LedgerEntry[],
  options: LedgerAnalysisOptions = {},
): LedgerAnalysis {
  const sorted = [...entries].sort((a, b) => a.time - b.time);
  const window = options.window ?? {
    from: sorted[0]?.time ?? 0,
    to: sorted[sorted.length - 1]?.time ?? 0,
  };
  const wanted = options.controllers ? new Set(options.controllers) : undefined;
  const open = new Map<string, { entry: LedgerEntry; from: number }>();
  const byController = new Map<string, OwnershipInterval[]>();
  const strayActions: LedgerEntry[] = [];
  // Controllers some process declined by configuration, and those any process ever started (whole ledger).
  const declined = new Set<string>();
  const everStarted = new Set<string>();
  for (const entry of sorted) {
    const logical = logicalControllerName(entry.controller);
    if (entry.action === NOT_CONFIGURED) declined.add(logical);
    else if (entry.action === 'started') everStarted.add(logical);
  }
  const push = (logical: string, interval: OwnershipInterval): void => {
    byController.set(logical, [...(byController.get(logical) ?? []), interval]);
  };

  for (const entry of sorted) {
    const logical = logicalControllerName(entry.controller);
    if (wanted && !wanted.has(logical)) continue;
    if (!byController.has(logical)) byController.set(logical, []);
    const key = `${entry.identity}\u0000${entry.controller}`;
    const running = open.get(key);
    if (entry.action === 'started') {
      if (!running) open.set(key, { entry, from: entry.time });
    } else if (entry.action === 'stopped') {
      if (running) {
        open.delete(key);
        push(logical, interval(running.entry, running.from, entry.time, false));
      }
    } else if (entry.action !== NOT_CONFIGURED && !running) {
      strayActions.push(entry);
    }
  }
  for (const running of open.values()) {
    push(
      logicalControllerName(running.entry.controller),
      interval(running.entry, running.from, Math.max(window.to, running.from), true),
    );
  }
  for (const name of wanted ?? []) if (!byController.has(name)) byController.set(name, []);
  // No process ran it and some declined it: not configured anywhere, which is not a gap.
  const notConfigured = new Set([...declined].filter((c) => !everStarted.has(c)));
  return { ...ownershipReport(byController, window, notConfigured), strayActions };
}

function interval(entry: LedgerEntry, from: number, to: number, open: boolean): OwnershipInterval {
  return {
    identity: entry.identity,
    component: entry.component,
    controllerName: entry.controller,
    from,
    to,
    open,
  };
}
