import { controllerFigures, type ControllerOwnershipReport } from 'uproot/core';
import type { OwnershipReport } from 'uproot';
import type { SandboxRehearsalReport } from './rehearse-sandbox.js';

/** What the rehearsal proves, decided from the report (pure). */
export interface RehearsalVerdict {
  /** No migrated controller ever ran under two managers at once. */
  readonly zeroOverlap: boolean;
  /** Every migrated controller's largest gap stayed within the lease bound. */
  readonly gapsWithinBound: boolean;
  /** The outside (lease) timeline agrees with the ledger, up to observation lag. */
  readonly outsideAgrees: boolean;
  /** Every LoadBalancer Service kept its hostname and its one load balancer. */
  readonly loadBalancersKept: boolean;
  readonly promiseHolds: boolean;
}

export function rehearsalVerdict(report: SandboxRehearsalReport): RehearsalVerdict {
  const migrated = report.migrated.map((c) => report.ledger.controllers[c]);
  const zeroOverlap = migrated.every((c) => (controllerFigures(c)?.overlapSeconds ?? 0) === 0);
  // A migrated controller that never ran holds the bound only if no manager was configured to run it.
  const gapsWithinBound = migrated.every((c) => {
    const figures = controllerFigures(c);
    return figures ? figures.maxGapSeconds <= report.gapBoundSeconds : c?.state === 'not-configured';
  });
  const outsideAgrees = report.disagreements.every((d) => d.explained);
  const loadBalancersKept = report.loadBalancers.every((lb) => lb.after === lb.before && lb.elbCount === 1);
  return {
    zeroOverlap,
    gapsWithinBound,
    outsideAgrees,
    loadBalancersKept,
    promiseHolds: zeroOverlap && gapsWithinBound && outsideAgrees && loadBalancersKept,
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const round = (s: number): number => Math.round(s * 1000) / 1000;

function controllerJson(c: ControllerOwnershipReport | undefined): object {
  const figures = controllerFigures(c);
  return {
    state: c?.state ?? 'not-yet-running',
    ...(figures
      ? { overlapSeconds: round(figures.overlapSeconds), maxGapSeconds: round(figures.maxGapSeconds) }
      : {}),
    owners: (c?.intervals ?? []).map((i) => ({
      identity: i.identity,
      component: i.component,
      controllerName: i.controllerName,
      from: iso(i.from),
      to: iso(i.to),
      ...(i.open ? { open: true } : {}),
    })),
    overlaps: (c?.overlaps ?? []).map((o) => ({
      from: iso(o.from),
      to: iso(o.to),
      identities: o.identities,
    })),
    gaps: (c?.gaps ?? []).map((g) => ({
      from: iso(g.from),
      to: iso(g.to),
      seconds: round((g.to - g.from) / 1000),
    })),
  };
}

function reportJson(report: OwnershipReport, names: readonly string[]): Record<string, object> {
  return Object.fromEntries(names.map((n) => [n, controllerJson(report.controllers[n])]));
}

/**
 * The `-o json` document: per migrated controller the ledger's overlap and largest gap (plus the same from
 * the outside timeline), the lease timings, the agreement check, the load balancers, the steps, the verdict.
 */
export function rehearsalDocument(report: SandboxRehearsalReport): object {
  const others = Object.keys(report.ledger.controllers).filter((c) => !report.migrated.includes(c as never));
  const controllers = Object.fromEntries(
    report.migrated.map((c) => [
      c,
      {
        ...controllerJson(report.ledger.controllers[c]),
        outside: {
          overlapSeconds: round(controllerFigures(report.timeline.controllers[c])?.overlapSeconds ?? 0),
          maxGapSeconds: round(controllerFigures(report.timeline.controllers[c])?.maxGapSeconds ?? 0),
        },
      },
    ]),
  );
  return {
    apiVersion: 'uproot.dev/v1alpha1',
    kind: 'SandboxRehearsal',
    leaderMigration: report.leaderMigration,
    seed: report.seed,
    timings: {
      leaseDurationSeconds: report.timings.leaseDurationMs / 1000,
      renewDeadlineSeconds: report.timings.renewDeadlineMs / 1000,
      retryPeriodSeconds: report.timings.retryPeriodMs / 1000,
    },
    gapBoundSeconds: round(report.gapBoundSeconds),
    window: { from: iso(report.ledger.window.from), to: iso(report.ledger.window.to) },
    controllers,
    otherControllers: reportJson(report.ledger, others),
    outside: {
      controllers: reportJson(report.timeline, Object.keys(report.timeline.controllers)),
      leases: Object.fromEntries(
        Object.entries(report.timeline.leases).map(([k, spans]) => [
          k,
          spans.map((s) => ({ holder: s.holder, from: iso(s.from), to: iso(s.to), end: s.end })),
        ]),
      ),
    },
    agreement: {
      agrees: report.disagreements.every((d) => d.explained),
      toleranceSeconds: report.toleranceMs / 1000,
      disagreements: report.disagreements.map((d) => ({ ...d, from: iso(d.from), to: iso(d.to) })),
    },
    loadBalancers: report.loadBalancers,
    strayActions: report.ledger.strayActions.length,
    steps: report.steps.map((s) => ({ time: iso(s.time), step: s.step })),
    verdict: rehearsalVerdict(report),
  };
}

/** The text report: a table of migrated controllers, then the checks. */
export function renderRehearsalText(report: SandboxRehearsalReport): string {
  const v = rehearsalVerdict(report);
  const t = report.timings;
  const out: string[] = [];
  out.push(
    `Rehearsal ${report.leaderMigration ? 'with' : 'WITHOUT'} leader migration (seed ${report.seed}; lease ${t.leaseDurationMs / 1000}s, renew ${t.renewDeadlineMs / 1000}s, retry ${t.retryPeriodMs / 1000}s; gap bound ${round(report.gapBoundSeconds)}s)`,
  );
  for (const s of report.steps) out.push(`  ${iso(s.time).slice(11, 19)}  ${s.step}`);
  out.push('');
  out.push(
    `  ${'controller'.padEnd(22)}${'overlap'.padStart(10)}${'max gap'.padStart(10)}    outside view (overlap / max gap)`,
  );
  for (const c of report.migrated) {
    const l = controllerFigures(report.ledger.controllers[c]);
    const o = controllerFigures(report.timeline.controllers[c]);
    out.push(
      `  ${c.padEnd(22)}${`${round(l?.overlapSeconds ?? 0)}s`.padStart(10)}${`${round(l?.maxGapSeconds ?? 0)}s`.padStart(10)}    ${round(o?.overlapSeconds ?? 0)}s / ${round(o?.maxGapSeconds ?? 0)}s`,
    );
  }
  out.push('');
  const mark = (ok: boolean): string => (ok ? 'ok  ' : 'FAIL');
  out.push(`  ${mark(v.zeroOverlap)} no controller ran under two managers at once`);
  out.push(
    `  ${mark(v.gapsWithinBound)} no controller went unowned longer than ${round(report.gapBoundSeconds)}s`,
  );
  out.push(
    `  ${mark(v.outsideAgrees)} the lease timeline seen from outside agrees with the ledger (lag up to ${report.toleranceMs / 1000}s)`,
  );
  out.push(`  ${mark(v.loadBalancersKept)} every LoadBalancer Service kept its load balancer and hostname`);
  out.push('');
  out.push(
    report.leaderMigration
      ? v.promiseHolds
        ? 'The zero-downtime promise holds.'
        : 'The zero-downtime promise does NOT hold in this run.'
      : `Without leader migration the cloud controllers went unowned for up to ${round(Math.max(...report.migrated.map((c) => controllerFigures(report.ledger.controllers[c])?.maxGapSeconds ?? 0)))}s.`,
  );
  return `${out.join('\n')}\n`;
}
