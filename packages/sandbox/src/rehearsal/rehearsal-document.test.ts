import { describe, expect, it } from 'vitest';
import { analyzeLedger, type InferredTimeline, type LedgerEntry } from 'uproot/core';
import { rehearsalDocument, rehearsalVerdict, renderRehearsalText } from './rehearsal-document.js';
import type { SandboxRehearsalReport } from './rehearse-sandbox.js';

const T0 = Date.UTC(2026, 0, 1);
const e = (identity: string, controller: string, s: number, action: string): LedgerEntry => ({
  identity,
  controller,
  component: identity.startsWith('kcm') ? 'kube-controller-manager' : 'cloud-controller-manager',
  time: T0 + s * 1000,
  action,
});

function report(entries: LedgerEntry[], extra: Partial<SandboxRehearsalReport> = {}): SandboxRehearsalReport {
  const window = { from: T0, to: T0 + 100_000 };
  const ledger = analyzeLedger(entries, { window, controllers: ['service'] });
  const timeline: InferredTimeline = { ...ledger, leases: { kcm: [], ccm: [], migration: [] } };
  return {
    leaderMigration: true,
    seed: 1,
    timings: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    migrated: ['service'],
    gapBoundSeconds: 23.8,
    ledger,
    timeline,
    disagreements: [],
    toleranceMs: 19_000,
    loadBalancers: [{ service: 'default/web', before: 'a-1.elb', after: 'a-1.elb', elbCount: 1 }],
    steps: [{ time: T0, step: 'start' }],
    entries,
    observations: [],
    ...extra,
  };
}

describe('rehearsal verdict and document', () => {
  const handover = [
    e('kcm-1', 'service', 0, 'started'),
    e('kcm-1', 'service', 40, 'stopped'),
    e('ccm-1', 'service', 58, 'started'),
  ];

  it('holds the promise for a clean handover within the bound', () => {
    const r = report(handover);
    expect(rehearsalVerdict(r)).toEqual({
      zeroOverlap: true,
      gapsWithinBound: true,
      outsideAgrees: true,
      loadBalancersKept: true,
      promiseHolds: true,
    });
    const doc = rehearsalDocument(r) as {
      controllers: Record<string, { overlapSeconds: number; maxGapSeconds: number; outside: object }>;
      timings: object;
    };
    expect(doc.controllers.service).toMatchObject({
      overlapSeconds: 0,
      maxGapSeconds: 18,
      outside: { overlapSeconds: 0, maxGapSeconds: 18 },
    });
    expect(doc.timings).toEqual({
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 2,
    });
    const text = renderRehearsalText(r);
    expect(text).toContain('service                       0s       18s    0s / 18s');
    expect(text).toContain('The zero-downtime promise holds.');
  });

  it('fails on an overlap, a gap past the bound, a changed hostname or an unexplained disagreement', () => {
    const overlap = report([
      ...handover.slice(0, 1),
      e('ccm-1', 'service', 30, 'started'),
      e('kcm-1', 'service', 40, 'stopped'),
    ]);
    expect(rehearsalVerdict(overlap)).toMatchObject({ zeroOverlap: false, promiseHolds: false });
    const gap = report([
      e('kcm-1', 'service', 0, 'started'),
      e('kcm-1', 'service', 10, 'stopped'),
      e('ccm-1', 'service', 60, 'started'),
    ]);
    expect(rehearsalVerdict(gap)).toMatchObject({ gapsWithinBound: false, promiseHolds: false });
    const moved = report(handover, {
      loadBalancers: [{ service: 'default/web', before: 'a-1.elb', after: 'a-2.elb', elbCount: 1 }],
    });
    expect(rehearsalVerdict(moved)).toMatchObject({ loadBalancersKept: false, promiseHolds: false });
    const disagree = report(handover, {
      disagreements: [
        { controller: 'service', from: T0, to: T0 + 1, expected: [], actual: ['x'], explained: false },
      ],
    });
    expect(rehearsalVerdict(disagree)).toMatchObject({ outsideAgrees: false, promiseHolds: false });
    expect(renderRehearsalText(gap)).toContain('FAIL no controller went unowned longer than 23.8s');
  });
});
