/**
 * The lint guards of eslint.config.js hold the shape of docs/decisions/0001-shape-of-uproot.md: each is shown
 * refusing a violation at the place it guards, and letting the same code through where it is allowed.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../../../', import.meta.url).pathname });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

describe('layer guards', () => {
  it('keeps I/O, the SDKs and the layers above out of src/core', async () => {
    const code = `import { readFileSync } from 'node:fs';
import { EC2Client } from '@aws-sdk/client-ec2';
import { KubeConfig } from '@kubernetes/client-node';
import { runPlan } from '../../engine/run-plan.js';
import { KubeObjects } from '../../adapters/kube/kube-objects.js';
export const all = [readFileSync, EC2Client, KubeConfig, runPlan, KubeObjects];
`;
    const found = await problems('src/core/plan/guard.ts', code);
    expect(found).toHaveLength(5);
    expect(found.every((p) => p.startsWith('no-restricted-imports'))).toBe(true);
    // Tests of the core may read fixture files.
    expect(
      await problems(
        'src/core/plan/guard.test.ts',
        "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      ),
    ).toEqual([]);
  });

  it('keeps the adapters out of src/engine, and lets the toolkit wire them', async () => {
    const code =
      "import { KubeObjects } from '../../adapters/kube/kube-objects.js';\nexport const k = KubeObjects;\n";
    expect(await problems('src/engine/appliers/guard.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*src\/engine imports no adapter/),
    ]);
    expect(await problems('src/toolkit/session/guard.ts', code)).toEqual([]);
  });

  it('lets only the CLI sandbox and demo commands import the sandbox', async () => {
    const code = "import { startTwin } from '../../sandbox/twin/index.js';\nexport const t = startTwin;\n";
    for (const file of [
      'src/toolkit/session/guard.ts',
      'src/cli/commands/plan.ts',
      'src/engine/gates/guard.ts',
    ]) {
      expect(await problems(file, code)).toEqual([
        expect.stringMatching(/^no-restricted-imports: .*never imports src\/sandbox/),
      ]);
    }
    for (const file of [
      'src/cli/commands/demo.ts',
      'src/cli/commands/sandbox.ts',
      'src/sandbox/demo/guard.ts',
    ]) {
      expect(await problems(file, code)).toEqual([]);
    }
  });
});

describe('typed errors and function size', () => {
  it('refuses `throw new Error` in src, not in tests', async () => {
    const code = "export function f(): never {\n  throw new Error('x');\n}\n";
    expect(await problems('src/toolkit/guard.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: Throw an UprootError subclass/),
    ]);
    expect(await problems('src/toolkit/guard.test.ts', code)).toEqual([]);
  });

  it('warns (not fails) on a function over 80 lines', async () => {
    const body = Array.from({ length: 81 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const code = `export function long(): number {\n${body}\n  return v0;\n}\n`;
    const [result] = await eslint.lintText(code, { filePath: 'src/toolkit/guard.ts' });
    const messages = (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines-per-function');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.severity).toBe(1);
  });
});
