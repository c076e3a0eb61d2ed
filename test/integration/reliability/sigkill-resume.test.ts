import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RealClock } from '../../../packages/uproot/src/clock/index.js';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { twinTarget } from '../../../packages/sandbox/src/demo/twin-target.js';
import { loadScenario } from '../../../packages/sandbox/src/scenarios/index.js';
import { startTwin, type Twin } from '../../../packages/sandbox/src/twin/index.js';

/**
 * `uproot migrate` killed with SIGKILL (no chance to release its lock) and `--resume` run at once on the same
 * machine: the lock's Lease names the dead process, so the new run takes over without waiting the minute
 * for the lease to expire, and says so. The twin runs in real time sped up; uproot runs as its own process,
 * as a person runs it.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = ['--conditions=uproot-source', '--import', 'tsx', join(ROOT, 'packages/uproot/src/cli/main.ts')];

/** Runs `uproot migrate` as its own process and SIGKILLs it once its stderr matches `at`. */
async function killedAt(
  args: string[],
  env: Record<string, string>,
  at: RegExp,
): Promise<{ pid: number; stderr: string }> {
  const child = spawn(process.execPath, [...CLI, 'migrate', ...args], {
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
  const deadline = Date.now() + 150_000;
  while (!at.test(stderr) && !exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(stderr).toMatch(at);
  child.kill('SIGKILL');
  expect(await closed).toBe('SIGKILL');
  return { pid: child.pid!, stderr };
}

/** An rke2-intree twin in real time sped up (the CLI in its own process keeps real time), and the flags for it. */
async function twinForCli(): Promise<{
  twin: Twin;
  dir: string;
  flags: string[];
  env: Record<string, string>;
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-sigkill-'));
  const clock = new RealClock({ scale: 50 });
  const twin = await startTwin({
    scenario: loadScenario('rke2-intree').scenario,
    clock,
    dir: join(dir, 'twin'),
  });
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
  ];
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    ...awsEnvironment(twin.aws),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  return {
    twin,
    dir,
    flags,
    env,
    close: async () => {
      await twin.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tookOver(stderr: string, pid: number): void {
  expect(stderr).not.toMatch(/UP-LOCK-HELD|expires in/);
  expect(stderr).toMatch(
    new RegExp(
      `note: took over the migration lock from \\S+ at once: its process ${pid} on this machine \\(\\S+\\) is gone`,
    ),
  );
}

describe('uproot migrate killed with SIGKILL, then --resume at once', () => {
  it('takes the lock over from the dead process without waiting and continues', async () => {
    const sb = await twinForCli();
    try {
      const { flags, env } = sb;
      // Killed while it waits on the gate of a step it has applied, holding the lock.
      const killed = await killedAt(
        [...flags, '--yes', '--skip-preflight'],
        env,
        /→ enable-leader-migration[\s\S]*… cluster rolled out/,
      );
      const io = recordingIo({ cwd: sb.dir, env });
      const code = await runCli(
        ['migrate', '--resume', '--yes', '--until', 'enable-leader-migration', ...flags],
        io,
      );
      tookOver(io.stderrText, killed.pid);
      expect(code, io.stderrText.slice(-1500)).toBe(0);
      expect(io.stderrText).toContain('✓ enable-leader-migration verified');
    } finally {
      await sb.close();
    }
  }, 180_000);

  it.each([
    ['switch-to-external', 'the switch that also moves the cluster to 1.27'],
    ['upgrade-kubernetes-1.28', 'the hop to 1.28'],
  ])(
    'killed in %s (%s) while Rancher rolls it: --resume ends on 1.28 everywhere, verify passes, no overlap',
    async (step) => {
      const sb = await twinForCli();
      try {
        const { flags, env, twin } = sb;
        const killed = await killedAt(
          [...flags, '--yes', '--skip-preflight', '--target-version', 'v1.28.15+rke2r1'],
          env,
          new RegExp(`→ ${step.replace(/\./g, '\\.')}:[\\s\\S]*… cluster rolled out`),
        );
        expect(killed.stderr).not.toContain(`✓ ${step} verified`);

        const io = recordingIo({ cwd: sb.dir, env });
        const code = await runCli(['migrate', '--resume', '--yes', ...flags], io);
        tookOver(io.stderrText, killed.pid);
        expect(code, io.stderrText.slice(-1500)).toBe(0);
        expect(io.stderrText).toContain('✓ upgrade-kubernetes-1.28 verified');

        const { versions, apiServerVersion } = twin.status();
        expect(apiServerVersion).toBe('v1.28.15+rke2r1');
        expect(new Set(Object.values(versions.kubelets))).toEqual(new Set(['v1.28.15+rke2r1']));
        const verify = recordingIo({ cwd: sb.dir, env });
        const verified = await runCli(['verify', ...flags.slice(0, -2), '-o', 'json'], verify);
        const report = JSON.parse(verify.stdoutText) as { checks: { id: string; status: string }[] };
        expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
        expect(report.checks.find((c) => c.id === 'kubernetes-version')?.status).toBe('pass');
        expect(verified).toBe(0);
        for (const [name, c] of Object.entries(twin.ledgerReport().controllers))
          expect(c.overlapSeconds ?? 0, `${name} ran in two managers`).toBe(0);
      } finally {
        await sb.close();
      }
    },
    240_000,
  );
});
