/** scripts/check-cycles.ts (part of `npm run lint`) finds a cycle where there is one, type imports included. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cyclesIn } from '../../../scripts/check-cycles.js';

const dir = mkdtempSync(join(tmpdir(), 'uproot-cycles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check-cycles', () => {
  it('reports two files that import each other, a type import being enough', async () => {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = { b?: B };\n");
    writeFileSync(
      join(dir, 'b.ts'),
      "import { c } from './c.js';\nimport type { A } from './a.js';\nexport type B = { a?: A; c: typeof c };\n",
    );
    writeFileSync(join(dir, 'c.ts'), 'export const c = 1;\n');
    const found = await cyclesIn(dir);
    expect(found.files).toBe(3);
    expect(found.skipped).toEqual([]);
    expect(found.cycles).toEqual([['a.ts', 'b.ts']]);
  });
});
