import { describe, expect, it } from 'vitest';
import { buildReportModel, journalOwnership, renderReportHtml, renderReportMarkdown } from './index.js';
import { journalFor, plan, step } from '../engine/testing/plan-fixtures.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import { ownershipReport, type OwnershipInterval } from '../core/ownership/index.js';

const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const iso = (s: number): string => new Date(t0 + s * 1000).toISOString();

function journal(): Journal {
  const p = plan([
    step('enable-leader-migration', [], [{ type: 'cluster-rolled-out', timeoutSeconds: 600 }]),
    step('install-ccm', []),
    step('switch-to-external', []),
  ]);
  const j = journalFor(p, t0);
  return {
    ...j,
    baseline: {
      recordedAt: iso(0),
      loadBalancers: [
        { namespace: 'shop', name: 'web', hostnames: ['a1b2-1.us-east-1.elb.amazonaws.com'], ips: [] },
      ],
    },
    steps: [
      {
        id: 'enable-leader-migration',
        state: 'verified',
        startedAt: iso(0),
        appliedAt: iso(2),
        verifiedAt: iso(40),
        backups: [],
        changes: [],
        gates: [
          {
            gate: { type: 'cluster-rolled-out', timeoutSeconds: 600 },
            startedAt: iso(2),
            finishedAt: iso(40),
            result: { type: 'passed', after: 38000 },
          },
        ],
      },
      {
        id: 'install-ccm',
        state: 'failed',
        phase: 'verify',
        startedAt: iso(41),
        failedAt: iso(100),
        code: 'UP-GATE',
        reason: 'node ip-10-0-1-5 <has> no providerID',
        fix: 'tag the instance',
        backups: [],
        changes: [],
        gates: [],
      },
      { id: 'switch-to-external', state: 'pending' },
    ],
  };
}

const interval = (component: string, identity: string, from: number, to: number): OwnershipInterval => ({
  component,
  identity,
  controllerName: 'service',
  from: t0 + from * 1000,
  to: t0 + to * 1000,
  open: false,
});

describe('migration report', () => {
  const ownership = ownershipReport(
    new Map([
      [
        'service',
        [
          interval('kube-controller-manager', 'cp-1_a', 0, 50),
          interval('cloud-controller-manager', 'cp-1_b', 62, 120),
        ],
      ],
      [
        'route',
        [
          interval('kube-controller-manager', 'cp-1_a', 0, 70),
          interval('cloud-controller-manager', 'cp-2_c', 60, 120),
        ],
      ],
    ]),
    { from: t0, to: t0 + 120_000 },
  );

  it('derives the verdict, durations, gates and failures from the journal', () => {
    const m = buildReportModel(journal(), { ownership, now: t0 + 200_000 });
    expect(m.verdict).toBe('failed');
    expect(m.steps.map((s) => [s.id, s.state, s.durationSeconds])).toEqual([
      ['enable-leader-migration', 'verified', 40],
      ['install-ccm', 'failed', 59],
      ['switch-to-external', 'pending', undefined],
    ]);
    expect(m.steps[0]!.gates).toEqual([
      { type: 'cluster-rolled-out', result: 'passed', seconds: 38, detail: '' },
    ]);
    expect(m.controllers).toEqual([
      { name: 'route', migrated: true, state: 'running', overlapSeconds: 10, maxGapSeconds: 0 },
      { name: 'service', migrated: true, state: 'running', overlapSeconds: 0, maxGapSeconds: 12 },
    ]);
  });

  it('renders markdown with the steps, the failure and its fix, and the figures', () => {
    const md = renderReportMarkdown(buildReportModel(journal(), { ownership, now: t0 }));
    expect(md).toContain('Verdict: **failed**');
    expect(md).toContain('| install-ccm');
    expect(md).toContain('fix: tag the instance');
    expect(md).toContain('| route | 10 | 0 |');
  });

  it('renders a self-contained HTML page with an SVG bar per owner and a red bar per overlap, escaping text', () => {
    const html = renderReportHtml(buildReportModel(journal(), { ownership, now: t0 }));
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(html.match(/class="owner"/g)).toHaveLength(4);
    expect(html.match(/class="overlap"/g)).toHaveLength(1);
    expect(html.match(/class="gap"/g)).toHaveLength(1);
    expect(html).toContain('node ip-10-0-1-5 &lt;has&gt; no providerID');
  });

  it('says when nothing has run yet, and when no timeline was recorded', () => {
    const j = journal();
    const fresh = { ...j, steps: j.steps.map((s) => ({ id: s.id, state: 'pending' as const })) };
    const m = buildReportModel(fresh, { now: t0 });
    expect(m.verdict).toBe('not-started');
    expect(renderReportHtml(m)).toContain('No ownership timeline was recorded.');
  });

  it('names the CCM image once, with the tag the migration ends with', () => {
    const j = journal();
    const withTags: Journal = {
      ...j,
      plan: {
        ...j.plan,
        ccm: {
          ...j.plan.ccm,
          image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.14',
          installTag: 'v1.26.14',
          targetTag: 'v1.27.10',
        },
      },
    };
    const m = buildReportModel(withTags, { now: t0 });
    expect(m.ccmImage).toBe('registry.k8s.io/provider-aws/cloud-controller-manager:v1.27.10');
    for (const text of [renderReportHtml(m), renderReportMarkdown(m)]) {
      expect(text).toContain('cloud-controller-manager:v1.27.10');
      expect(text).not.toMatch(/cloud-controller-manager:v[\d.]+:/);
    }
  });

  it('lists the steps that change the Kubernetes version with their release and state (a journey\u2019s hops)', () => {
    const j = journal();
    const journey: Journal = {
      ...j,
      plan: {
        ...j.plan,
        kubernetes: {
          current: 'v1.26.15',
          target: 'v1.28.15',
          upgrades: [
            { step: 'install-ccm', version: 'v1.27.16', ccmTag: 'v1.27.10' },
            { step: 'switch-to-external', version: 'v1.28.15', ccmTag: 'v1.28.11' },
          ],
        },
      },
    };
    const m = buildReportModel(journey, { now: t0 });
    expect(m.versions.map((v) => [v.step, v.version, v.state])).toEqual([
      ['install-ccm', 'v1.27.16', 'failed'],
      ['switch-to-external', 'v1.28.15', 'pending'],
    ]);
    const md = renderReportMarkdown(m);
    expect(md).toContain('## Kubernetes versions');
    expect(md).toContain('| switch-to-external | v1.28.15 | v1.28.11 | pending |');
    expect(renderReportHtml(m)).toContain('<h2>Kubernetes versions</h2>');
    // A plan that keeps the version has no such section.
    expect(renderReportMarkdown(buildReportModel(j, { now: t0 }))).not.toContain('Kubernetes versions');
  });

  it('shows a controller no manager is configured to run, and one not yet running, as such, not as gaps', () => {
    const report = ownershipReport(
      new Map([
        ['route', []],
        ['cloud-node', []],
        ['service', [interval('kube-controller-manager', 'cp-1_a', 30, 120)]],
      ]),
      { from: t0, to: t0 + 120_000 },
      new Set(['route']),
    );
    const m = buildReportModel(journal(), { ownership: report, now: t0 });
    // The rows of controllerRows: migrated first, in their order, then the others.
    expect(m.controllers).toEqual([
      { name: 'route', migrated: true, state: 'not-configured' },
      { name: 'service', migrated: true, state: 'running', overlapSeconds: 0, maxGapSeconds: 0 },
      { name: 'cloud-node', migrated: false, state: 'not-yet-running' },
    ]);
    const html = renderReportHtml(m);
    // service first ran at 30 s: the 30 s before are not a gap.
    expect(html).not.toMatch(/class="gap"/);
    expect(html).toContain('not run: neither manager is configured to run it');
    expect(html).toContain('not yet running');
    expect(html.indexOf('data-controller="route"')).toBeLessThan(html.indexOf('data-controller="service"'));
    expect(html.indexOf('data-controller="service"')).toBeLessThan(
      html.indexOf('data-controller="cloud-node"'),
    );
    const md = renderReportMarkdown(m);
    expect(md).toContain('| route | not run: neither manager is configured to run it | — |');
    expect(md).toContain('| service | 0 | 0 |');
    expect(md).toContain('| cloud-node | not yet running | — |');
  });

  it('says beside a gap figure when a handover of that controller was not watched (an upper bound)', () => {
    const m = buildReportModel(journal(), { now: t0 });
    const rows = [
      {
        name: 'service',
        migrated: true,
        state: 'running' as const,
        overlapSeconds: 0,
        maxGapSeconds: 16.2,
        unobservedGapSeconds: 57.7,
      },
    ];
    const text = '16.2 (and a handover uproot did not watch, at most 57.7 s)';
    expect(renderReportMarkdown({ ...m, controllers: rows })).toContain(`| service | 0 | ${text} |`);
    expect(renderReportHtml({ ...m, controllers: rows })).toContain(`<td>${text}</td>`);
  });

  it("shows the in-tree KCM's leader owning the cloud controllers before leader migration, not a gap", () => {
    const j = journal();
    const lease = (name: string, holder: string, at: number) => ({
      namespace: 'kube-system',
      name,
      holder,
      observedAt: iso(at),
      renewTime: iso(at),
      leaseDurationSeconds: 15,
    });
    const observed: Journal = {
      ...j,
      // enable-leader-migration starts at 0 s; its KCMs restart and take the migration lease at 30 s.
      steps: [
        j.steps[0]!,
        { id: 'install-ccm', state: 'pending' },
        { id: 'switch-to-external', state: 'pending' },
      ],
      leaseTimeline: [
        lease('kube-controller-manager', 'cp-1_before', 0),
        lease('kube-controller-manager', 'cp-2_after', 30),
        lease('cloud-provider-extraction-migration', 'cp-2_after', 30),
      ],
    };
    const ownership = journalOwnership(observed)!;
    const service = ownership.controllers.service!;
    expect(service.intervals[0]).toMatchObject({ identity: 'cp-1_before', from: t0 });
    expect(service.gaps.filter((g) => g.from === t0)).toEqual([]);
  });

  it('shows route as not configured where the plan runs it in neither manager (a standalone report)', () => {
    const j = journal();
    const lease = (name: string, holder: string, at: number) => ({
      namespace: 'kube-system',
      name,
      holder,
      observedAt: iso(at),
      renewTime: iso(at),
      leaseDurationSeconds: 15,
    });
    const observed = (ccmArgs: string[]): Journal => ({
      ...j,
      plan: { ...j.plan, decisions: { ...j.plan.decisions, ccmArgs } },
      steps: [
        j.steps[0]!,
        { id: 'install-ccm', state: 'pending' },
        { id: 'switch-to-external', state: 'pending' },
      ],
      leaseTimeline: [
        lease('kube-controller-manager', 'cp-1_before', 0),
        lease('kube-controller-manager', 'cp-2_after', 30),
        lease('cloud-provider-extraction-migration', 'cp-2_after', 30),
      ],
    });
    // The plan gave the CCM --configure-cloud-routes=false: the KCMs never started route either.
    const neither = journalOwnership(observed(['--configure-cloud-routes=false']))!;
    expect(neither.controllers.route).toEqual({
      state: 'not-configured',
      intervals: [],
      overlaps: [],
      gaps: [],
    });
    expect(neither.controllers.service!.state).toBe('running');
    const rows = buildReportModel(observed(['--configure-cloud-routes=false']), {
      ownership: neither,
      now: t0,
    }).controllers;
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ['route', 'not-configured'],
      ['service', 'running'],
      ['cloud-node-lifecycle', 'running'],
    ]);
    // Route moves: the leases tell who ran it.
    const moves = journalOwnership(
      observed(['--allocate-node-cidrs=true', '--configure-cloud-routes=true']),
    )!;
    expect(moves.controllers.route!.state).toBe('running');
  });
});
