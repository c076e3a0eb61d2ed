/**
 * Issue 25, items 3 and 4, at the command line: one output convention (`-o text|json|yaml` everywhere, errors
 * as a document on stdout with -o json|yaml, -y, -w) and target releases that exist.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recordingIo } from './io.js';
import { requestedDocument, runCli } from './program.js';
import './commands/index.js';

interface ErrorDoc {
  schemaVersion: string;
  error: { code: string; message: string; hint?: string; location?: { field?: string } };
  exitCode: number;
}

async function cli(argv: string[]) {
  const io = recordingIo({ cwd: mkdtempSync(join(tmpdir(), 'uproot-out-')) });
  const code = await runCli(argv, io);
  return { code, io };
}

describe('errors as a document with -o json|yaml', () => {
  it('reads the requested form from argv in every spelling', () => {
    expect(requestedDocument(['plan', '-o', 'json'])).toBe('json');
    expect(requestedDocument(['plan', '--output=yaml'])).toBe('yaml');
    expect(requestedDocument(['plan', '-ojson'])).toBe('json');
    expect(requestedDocument(['plan', '-o', 'text'])).toBeUndefined();
    expect(requestedDocument(['plan'])).toBeUndefined();
  });

  it('plan refuses a release that does not exist, as JSON on stdout with the exit code (issue 25)', async () => {
    const { code, io } = await cli([
      'plan',
      '--example',
      'rke2',
      '--target-version',
      'v1.27.99+rke2r1',
      '-o',
      'json',
    ]);
    expect(code).toBe(2);
    const doc = JSON.parse(io.stdoutText) as ErrorDoc;
    expect(doc).toMatchObject({
      schemaVersion: 'uproot.dev/error/v1',
      exitCode: 2,
      error: { code: 'UP-PLAN-TARGET-UNKNOWN-RELEASE', location: { field: '--target-version' } },
    });
    expect(doc.error.hint).toContain('v1.27.16+rke2r2');
    // The person still reads it on stderr.
    expect(io.stderrText).toContain('UP-PLAN-TARGET-UNKNOWN-RELEASE');
  });

  it('with --allow-unknown-release the brand-new release is planned as written', async () => {
    const { code, io } = await cli([
      'plan',
      '--example',
      'rke2',
      '--target-version',
      'v1.27.99+rke2r1',
      '--allow-unknown-release',
      '-o',
      'json',
    ]);
    expect(code, io.stderrText).toBe(0);
    expect((JSON.parse(io.stdoutText) as { kubernetes: { target: string } }).kubernetes.target).toBe(
      'v1.27.99+rke2r1',
    );
  });

  it('--target-version 1.40 suggests only releases that plan (issue 25)', async () => {
    const { code, io } = await cli(['plan', '--example', 'rke2', '--target-version', '1.40', '-o', 'yaml']);
    expect(code).toBe(2);
    const doc = parse(io.stdoutText) as ErrorDoc;
    expect(doc.error.code).toBe('UP-PLAN-TARGET-UNKNOWN');
    const suggested = [...(doc.error.hint ?? '').matchAll(/v1\.\d+\.\d+\+rke2r\d+/g)].map((m) => m[0]);
    expect(suggested.length).toBeGreaterThan(0);
    for (const release of suggested) {
      const again = await cli(['plan', '--example', 'rke2', '--target-version', release, '-o', 'json']);
      expect(again.code, again.io.stderrText).toBe(0);
    }
  });

  it('usage errors are documents too', async () => {
    const { code, io } = await cli(['migrate', '--no-such-flag', '-o', 'json']);
    expect(code).toBe(2);
    expect(JSON.parse(io.stdoutText)).toMatchObject({ error: { code: 'UP-CLI-USAGE' }, exitCode: 2 });
  });

  it('text output keeps stdout free of error documents', async () => {
    const { code, io } = await cli(['plan', '--example', 'rke2', '--target-version', '1.40']);
    expect(code).toBe(2);
    expect(io.stdoutText).toBe('');
  });
});

describe('-o on every command that prints a result', () => {
  it('preflight takes -o yaml (its error, here, comes as YAML)', async () => {
    const { code, io } = await cli(['preflight', '-o', 'yaml', '--region', 'nowhere']);
    expect(code).toBe(2);
    const doc = parse(io.stdoutText) as ErrorDoc;
    expect(doc.error.code).not.toBe('UP-CLI-OUTPUT');
    expect(doc.exitCode).toBe(2);
  });

  it('report takes -o json|yaml|text|html; --format stays as a deprecated alias', async () => {
    const missing = await cli(['report', '-o', 'yaml']);
    expect(missing.code).toBe(2);
    expect((parse(missing.io.stdoutText) as ErrorDoc).error.code).toBe('UP-REPORT-JOURNAL');
    const refused = await cli(['report', '-o', 'pdf']);
    expect((refused.io.stderrText.match(/UP-CLI-OUTPUT/g) ?? []).length).toBe(1);
    const { reportForm } = await import('./commands/report.js');
    expect(reportForm({})).toBe('text');
    expect(reportForm({ out: 'r.html' })).toBe('html');
    expect(reportForm({ output: 'yaml', out: 'r.yaml' })).toBe('yaml');
    expect(reportForm({ format: 'md' })).toBe('text');
    expect(reportForm({ format: 'json' })).toBe('json');
  });

  it('-y is --yes and -w is --watch', async () => {
    for (const [command, flag] of [
      ['migrate', '-y, --yes'],
      ['rollback', '-y, --yes'],
      ['status', '-w, --watch'],
    ] as const) {
      const { io } = await cli([command, '--help']);
      expect(io.stdoutText).toContain(flag);
      expect(io.stdoutText).toMatch(/-o, --output <format>\s+text, json or yaml/);
    }
  });
});

describe('migrate --dry-run prints no hint it cannot follow', () => {
  it('has no --out, so it does not mention it', async () => {
    const { renderPlanText } = await import('../toolkit/documents.js');
    const { plan } = await import('../toolkit/plan.js');
    const { plan: planned } = await plan({ example: 'rke2' });
    expect(renderPlanText(planned)).toContain('--out DIR');
    expect(renderPlanText(planned, { outHint: false })).not.toContain('--out');
  });
});
