import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import '../../../packages/uproot/src/cli/commands/index.js';

interface FaultsDoc {
  exitCode: number;
  verify: { outcome: string };
  controllers: Record<string, { state: string; overlapSeconds?: number; maxGapSeconds?: number }>;
  faults: { seed: number; faults: { fault: string; fired: number; detail: string }[] };
}

describe('uproot demo --faults', () => {
  it('with the default mix (virtual time) ends verified, zero overlap, the gap bound held, and lists what fired', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-faults-demo-'));
    try {
      const io = recordingIo({ env: { PATH: process.env.PATH }, cwd: dir });
      const code = await runCli(['demo', '--faults', '--dir', join(dir, 'twin'), '-o', 'json'], io);
      const doc = JSON.parse(io.stdoutText) as FaultsDoc;
      expect(code).toBe(0);
      expect(doc.verify.outcome).toBe('pass');
      for (const name of ['service', 'cloud-node-lifecycle']) {
        expect(doc.controllers[name]).toMatchObject({ state: 'running', overlapSeconds: 0 });
        // The promise's bound (lease duration 15 s + retry period 2 s + 3 s start), which the gate enforces.
        expect(doc.controllers[name]?.maxGapSeconds).toBeLessThanOrEqual(20);
      }
      const fired = new Map(doc.faults.faults.map((f) => [f.fault, f]));
      // Every fault of the mix is listed; these fire on every run of the rke2 twin's migration.
      for (const fault of [
        'api-errors',
        'api-throttle',
        'api-latency',
        'aws-throttle',
        'node-notready',
        'ccm-crashloop',
      ])
        expect(fired.get(fault)?.fired, fault).toBeGreaterThan(0);
      expect(fired.get('ccm-crashloop')?.fired).toBe(2);
      expect(fired.get('node-notready')?.detail).toMatch(
        /stopped renewing its Lease 60 s in the middle of a roll/,
      );
      expect(doc.faults.seed).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a bad spec with exit 2 before any twin starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-faults-demo-'));
    try {
      const io = recordingIo({ env: { PATH: process.env.PATH }, cwd: dir });
      const code = await runCli(['demo', '--faults', 'api-errors=2', '--dir', join(dir, 'twin')], io);
      expect(code).toBe(2);
      expect(io.stderrText).toContain('UP-SANDBOX-FAULTS');
      expect(io.stderrText).toContain('--faults');
      expect(io.stderrText).toContain('a rate is from 0 to 1');
      expect(existsSync(join(dir, 'twin'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
