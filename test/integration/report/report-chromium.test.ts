import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildReportModel,
  journalOwnership,
  renderReportHtml,
} from '../../../packages/uproot/src/report/index.js';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';
import { journalSchema } from '../../../packages/uproot/src/engine/journal/journal-schema.js';
import { journalFor, plan, step } from '../../../packages/uproot/src/engine/testing/plan-fixtures.js';
import {
  ownershipReport,
  type OwnershipInterval,
} from '../../../packages/uproot/src/core/ownership/index.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
// CI installs Debian's chromium (.ci/run); a developer machine without it skips this file.
const skip = !CHROMIUM && !process.env.CI;

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function reportHtml(): string {
  const t0 = Date.UTC(2026, 0, 1, 12);
  const at = (s: number): string => new Date(t0 + s * 1000).toISOString();
  const j = journalFor(plan([step('install-ccm', []), step('switch-to-external', [])]), t0);
  const journal = {
    ...j,
    steps: [
      {
        id: 'install-ccm' as const,
        state: 'verified' as const,
        startedAt: at(0),
        appliedAt: at(5),
        verifiedAt: at(30),
        backups: [],
        changes: [],
        gates: [],
      },
      {
        id: 'switch-to-external' as const,
        state: 'verified' as const,
        startedAt: at(31),
        appliedAt: at(40),
        verifiedAt: at(110),
        backups: [],
        changes: [],
        gates: [],
      },
    ],
  };
  const iv = (component: string, identity: string, from: number, to: number): OwnershipInterval => ({
    component,
    identity,
    controllerName: 'service',
    from: t0 + from * 1000,
    to: t0 + to * 1000,
    open: false,
  });
  const ownership = ownershipReport(
    new Map([
      [
        'service',
        [iv('kube-controller-manager', 'cp-1_k', 0, 60), iv('cloud-controller-manager', 'cp-1_c', 75, 120)],
      ],
      [
        'cloud-node-lifecycle',
        [iv('kube-controller-manager', 'cp-1_k', 0, 60), iv('cloud-controller-manager', 'cp-2_c', 72, 120)],
      ],
    ]),
    { from: t0, to: t0 + 120_000 },
  );
  return renderReportHtml(buildReportModel(journal, { ownership, now: t0 + 120_000 }));
}

/** The page as Chromium parsed it (`--dump-dom`). */
function dumpDom(file: string, profile: string): string {
  return execFileSync(
    CHROMIUM!,
    [...FLAGS, `--user-data-dir=${profile}`, '--dump-dom', pathToFileURL(file).href],
    {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
}

describe.skipIf(skip)('the HTML report in headless Chromium', () => {
  it("the demo's report: the CCM image once, route shown as not configured, the KCM owning from the start", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-report-demo-'));
    try {
      const result = await runDemo(
        { scenario: 'rke2-intree', timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        { instances: ec2Instances, virtualTime: true },
      );
      expect(result.exitCode).toBe(0);
      const dom = dumpDom(result.report!.html, join(dir, 'profile'));
      // The header names the image the migration ends with, its tag once.
      expect(dom).toContain('<code>registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.14</code>');
      expect(dom).not.toMatch(/cloud-controller-manager:v[\d.]+:v/);
      // Neither manager runs the route controller (--configure-cloud-routes=false): said so, no gap drawn.
      expect(dom).not.toMatch(/<rect [^>]*data-controller="route"/);
      expect(dom.match(/not run: neither manager is configured to run it/g)).toHaveLength(2);
      expect(dom).toMatch(
        /<rect class="owner" data-controller="service" data-component="cloud-controller-manager"/,
      );

      // `uproot report` over the same journal (the inference from lease observations): the in-tree KCM's
      // leader owns the cloud controllers from the first observation, not "no owner".
      const journal = journalSchema.parse(
        JSON.parse(readFileSync(join(dir, 'twin', '.uproot', 'demo', 'journal.json'), 'utf8')),
      );
      const file = join(dir, 'journal-report.html');
      writeFileSync(
        file,
        renderReportHtml(
          buildReportModel(journal, { ownership: journalOwnership(journal), now: Date.now() }),
        ),
      );
      const inferred = dumpDom(file, join(dir, 'profile'));
      // The plan runs route in neither manager: the standalone report says so too, with no owner drawn.
      expect(inferred).not.toMatch(/<rect [^>]*data-controller="route"/);
      expect(inferred.match(/not run: neither manager is configured to run it/g)).toHaveLength(2);
      for (const controller of ['service', 'cloud-node-lifecycle']) {
        const at = new RegExp(
          `<rect class="(owner|gap)" data-controller="${controller}"[^>]* x="190\\.0"`,
          'g',
        );
        // x 190.0 is the window's start: an owner bar begins there, no gap does.
        expect(
          [...inferred.matchAll(at)].map((m) => m[1]),
          controller,
        ).toEqual(['owner']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('renders the timeline: one bar per owner, no overlap, gaps hatched; and a screenshot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-report-'));
    try {
      const file = join(dir, 'report.html');
      writeFileSync(file, reportHtml());
      const profile = join(dir, 'profile');
      const dom = execFileSync(
        CHROMIUM!,
        [...FLAGS, `--user-data-dir=${profile}`, '--dump-dom', pathToFileURL(file).href],
        {
          encoding: 'utf8',
          timeout: 60_000,
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      // The browser parsed the SVG into the DOM: four owner bars, two hatched gaps, no overlap.
      expect(dom.match(/<rect class="owner"/g)).toHaveLength(4);
      expect(dom.match(/<rect class="gap"/g)).toHaveLength(2);
      expect(dom).not.toContain('class="overlap"');
      expect(dom).toContain('verdict-completed');

      const png = join(dir, 'report.png');
      const shot = spawnSync(
        CHROMIUM!,
        [
          ...FLAGS,
          `--user-data-dir=${profile}`,
          `--screenshot=${png}`,
          '--window-size=1200,900',
          pathToFileURL(file).href,
        ],
        {
          timeout: 60_000,
          stdio: 'ignore',
        },
      );
      expect(shot.status).toBe(0);
      const bytes = readFileSync(png);
      expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect(statSync(png).size).toBeGreaterThan(10_000);
      if (process.env.UPROOT_KEEP_SCREENSHOT) writeFileSync(process.env.UPROOT_KEEP_SCREENSHOT, bytes);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
