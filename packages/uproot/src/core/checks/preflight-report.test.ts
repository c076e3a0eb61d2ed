import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  preflightJsonSchema,
  preflightReportSchema,
  PREFLIGHT_SCHEMA_VERSION,
  type PreflightReport,
} from './preflight-report.js';
import { outcomeOf, runChecks, summarize } from './run-checks.js';
import { renderPreflightText } from './render-text.js';
import { snapshotWith } from './fixtures/mutable.js';
import { okValue } from './fixtures/mutable.js';

const SCHEMA_FILE = new URL('../../../../../docs/preflight.schema.json', import.meta.url);

function reportFor(checks: ReturnType<typeof runChecks>): PreflightReport {
  return {
    schemaVersion: PREFLIGHT_SCHEMA_VERSION,
    target: {
      context: 'prod',
      server: 'https://127.0.0.1:6443',
      distro: 'rke2',
      kubernetesVersion: 'v1.26.15+rke2r1',
      region: 'us-west-2',
      nodes: 6,
    },
    outcome: outcomeOf(checks),
    summary: summarize(checks),
    checks,
    stats: {
      durationMs: 1234,
      kubernetes: { total: 21, byCall: { 'list nodes': 1 } },
      aws: { total: 15, byCall: { 'ec2:DescribeInstances': 1 } },
    },
  };
}

describe('the preflight report', () => {
  it('docs/preflight.schema.json is generated from the zod schema (UPDATE_SCHEMA=1 rewrites it)', () => {
    const generated = preflightJsonSchema();
    if (process.env.UPDATE_SCHEMA === '1')
      writeFileSync(SCHEMA_FILE, `${JSON.stringify(generated, null, 2)}\n`);
    // Compared as data, so reformatting the file (prettier) does not matter.
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(generated);
  });

  it('validates real reports and rejects a warn without a fix', () => {
    const broken = snapshotWith((m) => (okValue(okValue(m.aws).instances)[0]!.tags = {}));
    const report = reportFor(runChecks(broken));
    expect(preflightReportSchema.parse(report)).toEqual(report);
    const invalid = { ...report, checks: [{ ...report.checks[0]!, status: 'warn', fixes: [] }] };
    expect(preflightReportSchema.safeParse(invalid).success).toBe(false);
  });

  it("renders text grouped fail, warn, skip, pass with each problem's fix", () => {
    const s = snapshotWith((m) => {
      okValue(okValue(m.aws).instances)[0]!.tags = {};
      m.kube.storageClasses = { state: 'unavailable', reason: 'forbidden: cannot list storageclasses' };
      delete okValue(okValue(m.aws).subnets)[2]!.tags['kubernetes.io/role/elb'];
    });
    const text = renderPreflightText(reportFor(runChecks(s)));
    // The IAM checks skip too: this snapshot was not run through the IAM simulation.
    const order = ['FAIL (1)', 'WARN (1)', 'SKIP (3)', 'PASS (16)'].map((h) => text.indexOf(`\n${h}\n`));
    expect(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]!))).toBe(true);
    expect(text).toContain(
      '  ✗ cluster-tags: 1 tagging problem for cluster prod: instance i-00001000000000000: no cluster tag',
    );
    expect(text).toContain(
      '        $ aws ec2 create-tags --region us-west-2 --resources i-00001000000000000 --tags Key=kubernetes.io/cluster/prod,Value=owned',
    );
    expect(text).toContain('  - ebs-storage: forbidden: cannot list storageclasses');
    expect(text).toContain('  - iam-nodes: the IAM policies were not evaluated');
    expect(text).toContain('Result: FAIL: 1 failed, 1 warning, 3 skipped, 16 passed');
    expect(text).toContain('Requests: 21 to Kubernetes, 15 to AWS in 1.2s');
  });
});
