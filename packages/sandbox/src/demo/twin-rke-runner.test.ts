import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock, type CommandRunner, type CommandSpec } from 'uproot';
import { TWIN_RKE_BINARY, twinRkeRunner } from './twin-rke-runner.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function withClusterFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-rke-runner-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'cluster.yml'), text);
  return dir;
}

const fallbackCalls: CommandSpec[] = [];
const fallback: CommandRunner = {
  run: (spec) => {
    fallbackCalls.push(spec);
    return Promise.resolve({ type: 'exited', exitCode: 7, stdout: '', stderr: '', durationMs: 0 });
  },
};

describe('twinRkeRunner', () => {
  it('runs `rke up --config FILE` as the twin’s rke up on that file’s text, exit 0 on success', async () => {
    const dir = withClusterFile('nodes: []\n');
    const seen: [string, string][] = [];
    const runner = twinRkeRunner(
      (text, file) => {
        seen.push([text, file]);
        return Promise.resolve({
          ok: true,
          log: ['INFO[0000] Finished building Kubernetes cluster successfully'],
        });
      },
      new VirtualClock(),
      fallback,
    );
    const result = await runner.run({
      file: TWIN_RKE_BINARY,
      args: ['up', '--config', 'cluster.yml'],
      cwd: dir,
      timeoutMs: 1000,
    });
    expect(seen).toEqual([['nodes: []\n', join(dir, 'cluster.yml')]]);
    expect(result).toMatchObject({ type: 'exited', exitCode: 0 });
    expect(result.type === 'exited' && result.stdout).toMatch(/successfully/);
  });

  it('answers a refused config like rke: exit 1 with the reason on stderr', async () => {
    const dir = withClusterFile('cloud_provider: {name: aws}\n');
    const runner = twinRkeRunner(
      () =>
        Promise.resolve({
          ok: false,
          reason: 'Cloud provider aws is invalid for [v1.27.16-rancher1-1]',
          log: [],
        }),
      new VirtualClock(),
      fallback,
    );
    const result = await runner.run({
      file: TWIN_RKE_BINARY,
      args: ['up', '--config', 'cluster.yml'],
      cwd: dir,
      timeoutMs: 1,
    });
    expect(result).toMatchObject({ type: 'exited', exitCode: 1 });
    expect(result.type === 'exited' && result.stderr).toMatch(/Cloud provider aws is invalid/);
  });

  it('does not start for other rke verbs or a missing file, and passes other programs to the real runner', async () => {
    const runner = twinRkeRunner(() => Promise.reject(new Error('not called')), new VirtualClock(), fallback);
    expect((await runner.run({ file: TWIN_RKE_BINARY, args: ['remove'], timeoutMs: 1 })).type).toBe(
      'not-started',
    );
    const missing = await runner.run({
      file: TWIN_RKE_BINARY,
      args: ['up', '--config', 'nope.yml'],
      cwd: tmpdir(),
      timeoutMs: 1,
    });
    expect(missing.type === 'not-started' && missing.message).toMatch(/cannot read .*nope\.yml/);
    const other = await runner.run({ file: 'ssh', args: ['node-1'], timeoutMs: 1 });
    expect(other).toMatchObject({ type: 'exited', exitCode: 7 });
    expect(fallbackCalls.map((c) => c.file)).toEqual(['ssh']);
  });
});
