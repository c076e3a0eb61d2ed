import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  errorDocPaths,
  generateErrorsDoc,
  loadMeanings,
  renderErrorsDoc,
  runErrorCodesCli,
  scanErrorCodes,
  type RenderResult,
  type ScanResult,
} from '../../../scripts/error-codes.js';

// Reads the whole source tree with the TypeScript compiler (several seconds), hence an integration test.

describe('docs/errors.md', () => {
  let result: RenderResult;
  beforeAll(() => {
    result = generateErrorsDoc(REPO_ROOT);
  });

  it('has a meaning for every code the source raises, and none for codes it no longer raises', () => {
    expect(result.problems).toEqual([]);
  });

  it('is what the generator writes (regenerate with `npx tsx scripts/error-codes.ts`)', () => {
    expect(readFileSync(errorDocPaths(REPO_ROOT).doc, 'utf8')).toBe(result.markdown);
  });

  it('reads exit code and fault from the code that raises each error', () => {
    const row = (code: string) => result.codes.find((c) => c.code === code);
    expect(row('UP-INTERNAL')).toMatchObject({ exits: [3], sources: ['uproot'] });
    expect(row('UP-PLAN-YAML')).toMatchObject({ exits: [2], sources: ['user'] });
    // One conditional picks both the code and the exit code: 401/403 is access (2), the rest a failure (1).
    expect(row('UP-KUBE-API')).toMatchObject({ exits: [1], sources: ['environment'] });
    expect(row('UP-KUBE-ACCESS')).toMatchObject({ exits: [2], sources: ['environment'] });
    // Gate codes are built from the gate type and recorded in the journal, not thrown.
    expect(row('UP-GATE-NODES-CORDONED')).toMatchObject({
      exits: [1],
      files: ['uproot/src/engine/run-plan.ts'],
    });
    expect(row('UP-LEASE-NOTINITIALIZED')).toMatchObject({ exits: [3], sources: ['uproot'] });
    const codes = result.codes.map((c) => c.code);
    expect(codes).not.toContain('UP-GATE');
    expect(codes).not.toContain('UP-DEMO-DISTRO');
    expect(codes.filter((c) => c.startsWith('UP-TO') || c === 'UP-TEST')).toEqual([]);
  });
});

describe('scripts/error-codes.ts on a small source tree', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'uproot-error-codes-'));
  const src = path.join(root, 'src');
  let scan: ScanResult;
  const errorsImport = (() => {
    const rel = path
      .relative(src, path.join(REPO_ROOT, 'packages', 'uproot', 'src', 'errors', 'index.js'))
      .split(path.sep)
      .join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  })();
  const write = (file: string, text: string): void => {
    writeFileSync(path.join(root, file), text.replaceAll('ERRORS', errorsImport));
  };
  const meanings = (entries: Record<string, string>): void => {
    write(
      'docs/error-meanings.yaml',
      Object.entries(entries)
        .map(([k, v]) => `${k}: ${v}\n`)
        .join(''),
    );
  };
  const complete = {
    'UP-FIX-DIRECT': 'direct',
    'UP-FIX-HELPER': 'helper',
    'UP-FAM-*': 'a reason',
    'UP-FIX-DENIED': 'denied',
    'UP-FIX-FAILED': 'failed',
    'UP-FIX-REC-*': '{ exit: 1, source: environment, meaning: recorded }',
    'UP-INTERNAL': 'bug',
  };

  beforeAll(() => {
    for (const dir of ['src', 'docs']) mkdirSync(path.join(root, dir));
    write(
      'src/direct.ts',
      `import { InputError } from 'ERRORS';\nexport const a = () => { throw new InputError('UP-FIX-DIRECT', 'm', { hint: 'h' }); };\n`,
    );
    write(
      'src/helper.ts',
      `import { InputError } from 'ERRORS';\nexport function fail(code: string, message: string) { return new InputError(code, message); }\n`,
    );
    write(
      'src/caller.ts',
      `import { fail } from './helper.js';\nexport const b = () => { throw fail('UP-FIX-HELPER', 'm'); };\n`,
    );
    write(
      'src/fix-error.ts',
      `import { UprootError } from 'ERRORS';\ntype Reason = 'Gone' | 'Busy';\n` +
        `export class FixError extends UprootError {\n  constructor(reason: Reason, message: string) {\n` +
        `    super(\`UP-FAM-\${reason.toUpperCase()}\`, message, { source: reason === 'Busy' ? 'environment' : 'uproot' });\n  }\n}\n`,
    );
    write(
      'src/use-fix-error.ts',
      `import { FixError } from './fix-error.js';\nexport const c = () => new FixError('Busy', 'm');\nexport const d = () => new FixError('Gone', 'm');\n`,
    );
    write(
      'src/conditional.ts',
      `import { ExitCode, UprootError } from 'ERRORS';\nexport const e = (s: number) => new UprootError(s === 403 ? 'UP-FIX-DENIED' : 'UP-FIX-FAILED', 'm', {\n` +
        `  source: 'environment',\n  exitCode: s === 403 ? ExitCode.badInput : ExitCode.failed,\n});\n`,
    );
    write(
      'src/record.ts',
      `type Kind = 'a-b' | 'c';\nexport const r = (k: Kind) => ({ phase: 'verify', code: \`UP-FIX-REC-\${k.toUpperCase()}\` });\n`,
    );
    write(
      'src/internal.ts',
      `import { InternalError } from 'ERRORS';\nexport const f = () => new InternalError('x');\n`,
    );
    write(
      'src/compare.ts',
      `export const is = (e: { code: string }) => e.code === 'UP-FIX-DIRECT' || e.code === 'UP-FIX-NEVER';\n`,
    );
    write(
      'src/direct.test.ts',
      `import { InputError } from 'ERRORS';\nnew InputError('UP-FIX-IN-TEST', 'm');\n`,
    );
    scan = scanErrorCodes(src);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds direct raises, helpers, subclasses, templates, conditionals and records, but not tests', () => {
    const seen = scan.raises
      .map((r) => `${r.code} ${r.file} ${r.kind} ${r.source ?? '-'} ${r.exit ?? '-'}`)
      .sort();
    expect(seen).toEqual([
      'UP-FAM-BUSY use-fix-error.ts error environment 2',
      'UP-FAM-GONE use-fix-error.ts error uproot 3',
      'UP-FIX-DENIED conditional.ts error environment 2',
      'UP-FIX-DIRECT direct.ts error user 2',
      'UP-FIX-FAILED conditional.ts error environment 1',
      'UP-FIX-HELPER caller.ts error user 2',
      'UP-FIX-REC-A-B record.ts record - -',
      'UP-FIX-REC-C record.ts record - -',
      'UP-INTERNAL internal.ts error uproot 3',
    ]);
    expect(scan.references.map((r) => r.code).sort()).toEqual(['UP-FIX-DIRECT', 'UP-FIX-NEVER']);
    expect(scan.problems).toEqual([]);
  });

  it('reports codes without a meaning, stale meanings, records without exit, and unknown references', () => {
    const { 'UP-FIX-HELPER': _helper, 'UP-FIX-REC-*': _rec, ...partial } = complete;
    meanings({ ...partial, 'UP-FIX-REC-A-B': 'recorded', 'UP-FIX-REC-C': 'recorded', 'UP-FIX-OLD': 'gone' });
    const { problems } = renderErrorsDoc(scan, loadMeanings(errorDocPaths(root).meanings));
    const text = problems.join('\n');
    expect(text).toMatch(/UP-FIX-HELPER \(raised in caller\.ts\) has no meaning/);
    expect(text).toMatch(/UP-FIX-OLD is not raised anywhere/);
    expect(text).toMatch(
      /UP-FIX-REC-A-B is recorded, not raised as an error, so .* must give its exit and source/,
    );
    expect(text).toMatch(/compare\.ts:1: UP-FIX-NEVER is used but never raised/);
    expect(problems).toHaveLength(5); // both record codes lack exit and source
  });

  it('names the file, line and key of a malformed meaning', () => {
    write('docs/bad.yaml', 'UP-FIX-DIRECT: fine\nUP-FIX-HELPER:\n  exit: two\n');
    expect(() => loadMeanings(path.join(root, 'docs', 'bad.yaml'))).toThrow(/bad\.yaml:2: UP-FIX-HELPER: /);
    write('docs/bad.yaml', 'up-fix-direct: lower case\n');
    expect(() => loadMeanings(path.join(root, 'docs', 'bad.yaml'))).toThrow(
      /bad\.yaml:1: key "up-fix-direct"/,
    );
  });

  it('writes the table, and --check fails once the doc is stale', () => {
    meanings(complete);
    write('src/compare.ts', `export const is = (e: { code: string }) => e.code === 'UP-FIX-DIRECT';\n`);
    const lines: string[] = [];
    const output = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };

    expect(runErrorCodesCli(['--check'], root, output)).toBe(1);
    expect(runErrorCodesCli([], root, output)).toBe(0);
    expect(runErrorCodesCli(['--check'], root, output)).toBe(0);
    const doc = readFileSync(errorDocPaths(root).doc, 'utf8');
    expect(doc).toContain('| `UP-FIX-FAILED` | 1 | environment | failed | conditional.ts |');
    // Family members share a row only when exit and fault agree.
    expect(doc).toContain('| `UP-FAM-BUSY` | 2 | environment | a reason | use-fix-error.ts |');
    expect(doc).toContain('| `UP-FAM-GONE` | 3 | uproot (bug) | a reason | use-fix-error.ts |');
    expect(doc).toContain('| `UP-FIX-REC-A-B`, `UP-FIX-REC-C` | 1 | environment | recorded | record.ts |');

    writeFileSync(errorDocPaths(root).doc, doc.replace('| bug |', '| a bug |'));
    expect(runErrorCodesCli(['--check'], root, output)).toBe(1);
    expect(lines.at(-1)).toMatch(/stale/);
  });
});
