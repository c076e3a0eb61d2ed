import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRunner } from 'uproot';
import { TWIN_NODE_BINARY, twinNodeRunner } from './twin-node-runner.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const next: CommandRunner = {
  run: async (spec) => ({ type: 'exited', exitCode: 7, stdout: spec.file, stderr: '', durationMs: 0 }),
};

describe('twinNodeRunner', () => {
  it('writes and deletes a file in the machine’s folder, and passes other commands on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-node-runner-'));
    dirs.push(dir);
    const runner = twinNodeRunner(dir, next);
    const spec = { file: TWIN_NODE_BINARY, timeoutMs: 1000 };
    const file = join(dir, 'cp-1', 'etc/leadermigration.conf');
    await runner.run({ ...spec, args: ['write', 'cp-1', '/etc/leadermigration.conf'], stdin: 'kind: X\n' });
    expect(readFileSync(file, 'utf8')).toBe('kind: X\n');
    await runner.run({ ...spec, args: ['delete', 'cp-1', '/etc/leadermigration.conf'] });
    expect(existsSync(file)).toBe(false);
    expect(await runner.run({ file: 'ssh', args: [], timeoutMs: 1 })).toMatchObject({ exitCode: 7 });
  });

  it('refuses a path that leaves the machine’s folder or an unknown verb', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-node-runner-'));
    dirs.push(dir);
    const runner = twinNodeRunner(dir, next);
    const spec = { file: TWIN_NODE_BINARY, timeoutMs: 1000 };
    expect(await runner.run({ ...spec, args: ['write', 'cp-1', '/../../x'] })).toMatchObject({
      type: 'not-started',
    });
    expect(await runner.run({ ...spec, args: ['chmod', 'cp-1', '/x'] })).toMatchObject({
      type: 'not-started',
    });
  });
});
