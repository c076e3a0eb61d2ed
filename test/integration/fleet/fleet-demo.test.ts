import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';

describe('uproot demo --scenario fleet', () => {
  it('runs fleet preflight, migrate --as-jobs, status and report end to end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-fleet-demo-'));
    try {
      const io = recordingIo({ cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
      const code = await runCli(
        ['demo', '--scenario', 'fleet', '--clusters', '4', '--nodes', '4', '--dir', dir, '-o', 'json'],
        io,
      );
      expect(code, io.stderrText.slice(-2000)).toBe(0);
      const result = JSON.parse(io.stdoutText);
      expect(result.migration.rows.map((r: { outcome: { type: string } }) => r.outcome.type)).toEqual([
        'migrated',
        'migrated',
        'migrated',
        'preflight-failed',
      ]);
      expect(result.status.counts).toMatchObject({ migrated: 3, 'not-started': 1 });
      expect(result.report).toBe(join(dir, 'report', 'index.html'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
