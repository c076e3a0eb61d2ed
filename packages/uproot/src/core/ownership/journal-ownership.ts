import { boolFlag } from '../model/flag-list.js';
import type { LeaseRecord } from './lease-record.js';
import type { MigrationHistory } from './migration-history.js';
import type { OwnershipReport } from './ownership-report.js';
import { inferProfiledOwnership } from './profiled-inference.js';

/** A migration journal, as far as its ownership goes (the engine's Journal is one). */
export interface JournalOwnershipInput extends MigrationHistory {
  readonly leaseTimeline: readonly LeaseRecord[];
}

/**
 * The ownership timeline as seen from outside, inferred from the lease holder changes the journal recorded,
 * each holder judged by the configuration the plan's steps gave its manager when it appeared (the gates'
 * inference, profiled-inference.ts): before leader migration is enabled, the in-tree
 * kube-controller-manager's leader owns the cloud controllers under its own lease, so that time is shown as
 * owned, not as a gap. Approximate by nature (an observer cannot see a process die, only its lease expire);
 * the sandbox's ledger is the ground truth where there is one. Undefined when the journal holds fewer than
 * two observations.
 */
export function journalOwnership(journal: JournalOwnershipInput): OwnershipReport | undefined {
  if (journal.leaseTimeline.length < 2) return undefined;
  const finished = journal.steps.flatMap((s) =>
    s.state === 'verified'
      ? [Date.parse(s.verifiedAt)]
      : s.state === 'failed'
        ? [Date.parse(s.failedAt)]
        : [],
  );
  const observed = journal.leaseTimeline.map((o) => Date.parse(o.observedAt));
  const inferred = inferProfiledOwnership(
    journal.leaseTimeline,
    {
      history: {
        plan: journal.plan,
        steps: journal.steps,
        ...(journal.rollback ? { rollback: journal.rollback } : {}),
      },
      now: Math.max(...observed, ...finished.filter((t) => !Number.isNaN(t))),
    },
    ['route', 'service', 'cloud-node-lifecycle'],
  );
  return inferred && routeRunsInNeither(journal.plan) ? withoutRoute(inferred.report) : inferred?.report;
}

/** The controllers the plan runs in neither manager (route, when the CCM gets --configure-cloud-routes=false). */
export function plannedNotConfigured(plan: JournalOwnershipInput['plan']): ReadonlySet<string> {
  return new Set(routeRunsInNeither(plan) ? ['route'] : []);
}

/**
 * The plan's route decision (distros/shared/controller-handover.ts): the CCM gets --configure-cloud-routes=false
 * exactly when the KCMs never started route either. The leases cannot tell that a holder skipped a controller,
 * so the plan does: route is not configured, not owned by whoever held the lease.
 */
function routeRunsInNeither(plan: JournalOwnershipInput['plan']): boolean {
  const args = plan.decisions?.ccmArgs;
  return args !== undefined && boolFlag(args, 'configure-cloud-routes') === false;
}

function withoutRoute(report: OwnershipReport): OwnershipReport {
  if (!report.controllers.route) return report;
  const route = { state: 'not-configured', intervals: [], overlaps: [], gaps: [] } as const;
  return { ...report, controllers: { ...report.controllers, route } };
}
