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
    const found = await problems('packages/uproot/src/core/plan/guard.ts', code);
    expect(found).toHaveLength(5);
    expect(found.every((p) => p.startsWith('no-restricted-imports'))).toBe(true);
    // Tests of the core may read fixture files.
    expect(
      await problems(
        'packages/uproot/src/core/plan/guard.test.ts',
        "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      ),
    ).toEqual([]);
  });

  it('keeps the adapters out of src/engine, and lets the toolkit wire them', async () => {
    const code =
      "import { KubeObjects } from '../../adapters/kube/kube-objects.js';\nexport const k = KubeObjects;\n";
    expect(await problems('packages/uproot/src/engine/appliers/guard.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*src\/engine imports no adapter/),
    ]);
    expect(await problems('packages/uproot/src/toolkit/session/guard.ts', code)).toEqual([]);
  });

  it('keeps the sandbox out of uproot, and uproot\u2019s insides out of the sandbox', async () => {
    const deep =
      "import { startTwin } from '../../../../sandbox/src/twin/index.js';\nexport const t = startTwin;\n";
    const named = "import { startTwin } from '@uproot/sandbox';\nexport const t = startTwin;\n";
    for (const file of [
      'packages/uproot/src/toolkit/session/guard.ts',
      'packages/uproot/src/cli/commands/guard.ts',
      'packages/uproot/src/engine/gates/guard.ts',
      'packages/uproot/src/core/plan/guard.test.ts',
    ]) {
      for (const code of [deep, named]) {
        expect(await problems(file, code)).toEqual([
          expect.stringMatching(/^no-restricted-imports: .*uproot never imports the sandbox package/),
        ]);
      }
    }
    // The sandbox reaches uproot by its package name (its exports), never by a path into packages/uproot.
    const byName =
      "import { plan } from 'uproot';\nimport { runCli } from 'uproot/cli';\nexport const p = [plan, runCli];\n";
    expect(await problems('packages/sandbox/src/demo/guard.ts', byName)).toEqual([]);
    const byPath = "import { plan } from '../../../uproot/src/toolkit/plan.js';\nexport const p = plan;\n";
    expect(await problems('packages/sandbox/src/demo/guard.ts', byPath)).toEqual([
      expect.stringMatching(/^uproot\/imports-within: packages\/sandbox imports uproot by name only/),
    ]);
  });
});

describe('the CLI over the toolkit (issue 26)', () => {
  it('refuses the engine, the adapters and core folders in src/cli, and lets the toolkit, errors, clock and core/index through', async () => {
    const deep = `import { describeGate } from '../../engine/gates/evaluate-gate.js';
import { EXAMPLES } from '../../adapters/cluster-source/index.js';
import { renderPlanText } from '../../core/plan/render-text.js';
export const all = [describeGate, EXAMPLES, renderPlanText];
`;
    const found = await problems('packages/uproot/src/cli/commands/guard.ts', deep);
    expect(found).toHaveLength(3);
    expect(found.every((p) => p.startsWith('uproot/imports-within: src/cli imports only src/toolkit'))).toBe(
      true,
    );
    const allowed = `import { describeGate } from '../../toolkit/documents.js';
import { plan } from '../../toolkit/plan.js';
import { InputError } from '../../errors/index.js';
import { RealClock } from '../../clock/index.js';
import { imageTag } from '../../core/index.js';
import { VERSION } from '../../version.js';
export const all = [describeGate, plan, InputError, RealClock, imageTag, VERSION];
`;
    expect(await problems('packages/uproot/src/cli/commands/guard.ts', allowed)).toEqual([]);
  });
});

describe('one image-reference parser (issue 26)', () => {
  const code = `export function tagOf(image: string, c: { image?: string }): unknown[] {
  return [image.split('@')[0], image.lastIndexOf(':'), (c.image ?? '').split(':')[0], c.image?.indexOf('@')];
}
`;
  it('refuses hand parsing of image references in both packages, outside the parser', async () => {
    for (const file of [
      'packages/uproot/src/core/checks/guard.ts',
      'packages/sandbox/src/twin/nodes/guard.ts',
    ]) {
      const found = await problems(file, code);
      expect(found).toHaveLength(4);
      expect(found.every((p) => p.startsWith('no-restricted-syntax: Parse image references with'))).toBe(
        true,
      );
    }
    expect(await problems('packages/uproot/src/core/model/image-reference.ts', code)).toEqual([]);
    // Other strings split on ':' (ARNs, keys) are not image references.
    const other = "export const f = (arn: string, key: string) => [arn.split(':'), key.split(':')];\n";
    expect(await problems('packages/uproot/src/adapters/aws/guard.ts', other)).toEqual([]);
  });
});

describe('typed errors and function size', () => {
  it('refuses `throw new Error` in src, not in tests', async () => {
    const code = "export function f(): never {\n  throw new Error('x');\n}\n";
    expect(await problems('packages/uproot/src/toolkit/guard.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: Throw an UprootError subclass/),
    ]);
    expect(await problems('packages/uproot/src/toolkit/guard.test.ts', code)).toEqual([]);
  });

  it('fails on a function over 120 lines, and lets one of 120 pass', async () => {
    const fn = (lines: number): string => {
      const body = Array.from({ length: lines - 3 }, (_, i) => `  const v${i} = ${i};`).join('\n');
      return `export function long(): number {\n${body}\n  return v0;\n}\n`;
    };
    const lint = async (code: string) => {
      const [result] = await eslint.lintText(code, { filePath: 'packages/uproot/src/toolkit/guard.ts' });
      return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines-per-function');
    };
    const over = await lint(fn(121));
    expect(over).toHaveLength(1);
    expect(over[0]!.severity).toBe(2);
    expect(await lint(fn(120))).toHaveLength(0);
  });
});

describe('the order inside src/core (docs/architecture.md)', () => {
  it('keeps src/core/model from importing the rest of core', async () => {
    const code = "import { ccmRelease } from '../ccm/index.js';\nexport const r = ccmRelease;\n";
    expect(await problems('packages/uproot/src/core/model/guard.ts', code)).toEqual([
      expect.stringMatching(/^uproot\/imports-within: src\/core\/model is the floor of core/),
      expect.stringMatching(/^uproot\/layer-order: .*\(model imports ccm: ccm sits above model\)/),
    ]);
    const election = "import { atLeast } from '../../election/model/index.js';\nexport const a = atLeast;\n";
    expect(await problems('packages/uproot/src/core/model/guard.ts', election)).toEqual([]);
  });

  it('lets a room import the tiers below it only', async () => {
    const checks = "import { buildContext } from '../checks/index.js';\nexport const b = buildContext;\n";
    expect(await problems('packages/uproot/src/core/ccm/guard.ts', checks)).toEqual([
      expect.stringMatching(/^uproot\/layer-order: .*\(ccm imports checks: checks sits above ccm\)/),
    ]);
    // A check may use a distro's facts; a distro never imports a check.
    expect(
      await problems(
        'packages/uproot/src/core/checks/guard.ts',
        "import { planRke2 } from '../distros/rke2/index.js';\nexport const p = planRke2;\n",
      ),
    ).toEqual([]);
    expect(await problems('packages/uproot/src/core/distros/guard.ts', checks)).toEqual([
      expect.stringMatching(/^uproot\/layer-order: .*\(distros imports checks: checks sits above distros\)/),
    ]);
    const iam = "import { evaluateIam } from '../iam/index.js';\nexport const e = evaluateIam;\n";
    expect(await problems('packages/uproot/src/core/cloud-config/guard.ts', iam)).toEqual([
      expect.stringMatching(/^uproot\/layer-order: .*cloud-config and iam share a tier/),
    ]);
  });
});
