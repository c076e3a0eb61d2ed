/**
 * The user's path between commands (issue 25), on the rke2-intree twin through the CLI as a person types it:
 * a cluster that does not exist is exit 2 in every command, a wrong --rancher-context is named as such,
 * an invalid --target-version is exit 2 in preflight as in plan and migrate, verify proves nothing it did
 * not check, and every hint a run prints works when run exactly as printed (split by a real shell).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { startReliabilityTwin, type ReliabilityTwin } from '../reliability/harness.js';

let sb: ReliabilityTwin;
let cwd: string;
let target: string[];

beforeAll(async () => {
  sb = await startReliabilityTwin();
  cwd = mkdtempSync(join(tmpdir(), 'uproot-user-path-'));
  const t = sb.target;
  target = ['--kubeconfig', t.kubeconfig!, '--context', t.context!];
}, 120_000);
afterAll(async () => {
  await sb.close();
  rmSync(cwd, { recursive: true, force: true });
});

async function cli(args: readonly string[], answers?: boolean[]) {
  const io = recordingIo({
    cwd,
    ...(answers ? { answers } : {}),
    env: { PATH: process.env.PATH, ...awsEnvironment(sb.twin.aws), AWS_EC2_METADATA_DISABLED: 'true' },
  });
  // The twin runs in virtual time; the commands wait on the same clock.
  Object.assign(io, { clock: sb.clock });
  const code = await runCli(args, io);
  return { code, out: io.stdoutText, err: io.stderrText };
}

/** The backticked command after `lead` in `text`, split into words by a POSIX shell, program name dropped. */
function hint(text: string, lead: string): string[] {
  const at = text.indexOf(lead);
  expect(at, `no "${lead}" in:\n${text}`).toBeGreaterThanOrEqual(0);
  const command = /`([^`]+)`/.exec(text.slice(at))![1]!;
  const words = execFileSync('sh', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
  expect(words[0]).toBe('uproot');
  return words.slice(1);
}

function lockLeases(): string[] {
  return sb.twin
    .management!.store.list('coordination.k8s.io/v1/leases')
    .items.map((l) => l.metadata?.name ?? '')
    .filter((n) => n.startsWith('uproot-migration-lock'));
}

describe('the user path on the rke2-intree twin', () => {
  it('a Rancher cluster that does not exist is UP-CLUSTER-NOT-FOUND, exit 2, in every command, writing nothing', async () => {
    const nosuch = [...target, '--rancher-context', sb.target.rancherContext!, '--cluster', 'prod'];
    for (const command of [
      ['verify'],
      ['status'],
      ['rollback', '--yes'],
      ['migrate', '--dry-run'],
      ['preflight'],
    ]) {
      const r = await cli([...command, ...nosuch]);
      expect(r.code, `${command.join(' ')}: ${r.out}${r.err}`).toBe(2);
      expect(r.err).toContain('UP-CLUSTER-NOT-FOUND');
      expect(r.out).not.toContain('Verified');
    }
    expect(lockLeases()).toEqual([]);
  });

  it('rollback with no journal yet is refused (exit 2) without writing the lock', async () => {
    const flags = [
      ...target,
      '--rancher-context',
      sb.target.rancherContext!,
      '--cluster',
      sb.target.cluster!,
    ];
    const r = await cli(['rollback', ...flags, '--yes']);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('UP-ROLLBACK-NO-JOURNAL');
    expect(lockLeases()).toEqual([]);
  });

  it('a wrong --rancher-context is reported as --rancher-context', async () => {
    const r = await cli([
      'verify',
      ...target,
      '--rancher-context',
      'nosuch',
      '--cluster',
      sb.target.cluster!,
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('UP-KUBECONFIG-CONTEXT');
    expect(r.err).toContain('field --rancher-context, value "nosuch"');
  });

  it('an invalid --target-version is exit 2 in preflight, plan and migrate alike', async () => {
    const flags = [
      ...target,
      '--rancher-context',
      sb.target.rancherContext!,
      '--cluster',
      sb.target.cluster!,
    ];
    const pre = await cli(['preflight', ...flags, '--target-version', '1.24']);
    const mig = await cli(['migrate', ...flags, '--target-version', '1.24', '--dry-run']);
    expect([pre.code, mig.code], pre.err + mig.err).toEqual([2, 2]);
    expect(pre.err).toContain('UP-PLAN-TARGET-DOWNGRADE');
    expect(mig.err).toContain('UP-PLAN-TARGET-DOWNGRADE');
  });

  it('verify before any migration: not verified (exit 1), RKE2 detected (no static pods), skipped checks named', async () => {
    const r = await cli(['verify', ...target]);
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('Verified:');
    // RKE2's CCM is a DaemonSet (its KCM is a static pod, rightly named so).
    expect(r.out).not.toMatch(/cloud-controller-manager static pod/);
    expect(r.out).toContain('daemonset kube-system/aws-cloud-controller-manager');
    const plain = await cli(['verify', ...target, '-o', 'json']);
    const report = JSON.parse(plain.out) as { outcome: string; checks: { id: string; status: string }[] };
    expect(report.outcome).toBe('fail');
    expect(report.checks.filter((c) => c.status === 'skip').map((c) => c.id)).toEqual([
      'load-balancers-kept',
      'no-ownership-overlap',
    ]);
  });

  it('every hint a migration prints works as printed: --until, then Continue with, then Next', async () => {
    const flags = [
      ...target,
      '--rancher-context',
      sb.target.rancherContext!,
      '--cluster',
      sb.target.cluster!,
    ];
    const first = await cli(['migrate', ...flags, '--yes', '--until', 'enable-leader-migration']);
    expect(first.code, first.out + first.err).toBe(0);
    const resume = hint(first.out, 'Continue with');
    expect(resume).toEqual(['migrate', '--resume', ...flags]);

    // A bare status in the same folder: the journal is in Rancher, so it shows the local copy and says why.
    const bare = await cli(['status', ...target]);
    expect(bare.code).toBe(0);
    expect(bare.out).toMatch(/local copy|not live: .*--rancher-context/);

    // As printed, at a terminal: the person confirms.
    const rest = await cli(resume, [true]);
    expect(rest.code, rest.out + rest.err).toBe(0);
    expect(rest.out).toContain('complete');
    const next = hint(rest.out, 'Next:');
    expect(next).toEqual(['verify', ...flags]);

    await sb.settledVerify();
    const verified = await cli(next);
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toContain('Verified: the cluster runs on the aws-cloud-controller-manager.');
  }, 300_000);
});
