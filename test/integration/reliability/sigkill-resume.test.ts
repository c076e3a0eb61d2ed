import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RealClock } from '../../../src/clock/index.js';
import { recordingIo } from '../../../src/cli/io.js';
import { runCli } from '../../../src/cli/program.js';
import '../../../src/cli/commands/index.js';
import { awsEnvironment } from '../../../src/sandbox/aws/index.js';
import { twinTarget } from '../../../src/sandbox/demo/twin-target.js';
import { loadScenario } from '../../../src/sandbox/scenarios/index.js';
import { startTwin } from '../../../src/sandbox/twin/index.js';

/**
 * `uproot migrate` killed with SIGKILL (no chance to release its lock) and `--resume` run at once on the same
 * machine: the lock's Lease names the dead process, so the new run takes over without waiting the minute
 * for the lease to expire, and says so. The twin runs in real time sped up; uproot runs as its own process,
 * as a person runs it.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];

describe('uproot migrate killed with SIGKILL, then --resume at once', () => {
  it('takes the lock over from the dead process without waiting and continues', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-sigkill-'));
    const clock = new RealClock({ scale: 50 });
    const twin = await startTwin({
      scenario: loadScenario('rke2-intree').scenario,
      clock,
      dir: join(dir, 'twin'),
    });
    try {
      const { target } = twinTarget(twin, clock);
      const flags = [
        '--kubeconfig',
        target.kubeconfig!,
        '--context',
        target.context!,
        '--rancher-context',
        target.rancherContext!,
        '--cluster',
        target.cluster!,
        '--state-dir',
        join(dir, 'state'),
        '--yes',
        '--skip-preflight',
      ];
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ...awsEnvironment(twin.aws),
        AWS_EC2_METADATA_DISABLED: 'true',
      };

      const child = spawn(process.execPath, [...CLI, 'migrate', ...flags], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      let exited = false;
      const closed = new Promise<NodeJS.Signals | null>((r) =>
        child.on('close', (_code, signal) => {
          exited = true;
          r(signal);
        }),
      );
      // Killed while it waits on the gate of a step it has applied, holding the lock.
      const deadline = Date.now() + 90_000;
      while (
        !/→ enable-leader-migration[\s\S]*… cluster rolled out/.test(stderr) &&
        !exited &&
        Date.now() < deadline
      )
        await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toMatch(/… cluster rolled out/);
      child.kill('SIGKILL');
      expect(await closed).toBe('SIGKILL');

      const io = recordingIo({ cwd: dir, env });
      const code = await runCli(['migrate', '--resume', '--until', 'enable-leader-migration', ...flags], io);
      expect(io.stderrText).not.toMatch(/UP-LOCK-HELD|expires in/);
      expect(io.stderrText).toMatch(
        new RegExp(
          `note: took over the migration lock from \\S+ at once: its process ${child.pid} on this machine \\(\\S+\\) is gone`,
        ),
      );
      expect(code, io.stderrText.slice(-1500)).toBe(0);
      expect(io.stderrText).toContain('✓ enable-leader-migration verified');
    } finally {
      await twin.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
