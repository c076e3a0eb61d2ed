import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { RANCHER_NAMESPACE } from '../../../packages/sandbox/src/twin/rke2/provisioning-cluster.js';
import { startReliabilityTwin, type ReliabilityTwin } from '../reliability/harness.js';

/**
 * `uproot migrate --resume` as issue 25 found it on the rke2-intree twin: with no journal yet (a run killed
 * before its first write) it says the exact command that starts the run; without the --rancher-context and
 * --cluster of the run that wrote the journal, it names them from the local copy; and either refusal (exit 2)
 * writes nothing, not the lock's Lease nor a file.
 */
let sb: ReliabilityTwin;
let work: string;

beforeAll(async () => {
  sb = await startReliabilityTwin('rke2-intree');
  work = mkdtempSync(join(tmpdir(), 'uproot-resume-'));
}, 120_000);

afterAll(async () => {
  await sb?.close();
  rmSync(work, { recursive: true, force: true });
});

const LEASES = 'coordination.k8s.io/v1/leases';

/** The migration lock Leases, each with its resourceVersion: any write shows. */
function locks(): string[] {
  const names = (store: typeof sb.twin.downstream.store, namespace: string): string[] =>
    (store.list(LEASES, { namespace }).items as { metadata?: { name?: string; resourceVersion?: string } }[])
      .filter((l) => (l.metadata?.name ?? '').startsWith('uproot-migration-lock'))
      .map((l) => `${l.metadata?.name ?? ''}@${l.metadata?.resourceVersion ?? ''}`);
  return [
    ...names(sb.twin.downstream.store, 'kube-system'),
    ...names(sb.twin.management!.store, RANCHER_NAMESPACE),
  ];
}

async function cli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const io = recordingIo({ cwd: work, env: { PATH: process.env.PATH, HOME: work } });
  const code = await runCli(args, io);
  return { code, stderr: io.stderrText, stdout: io.stdoutText };
}

describe('uproot migrate --resume finds the journal, or says what to type', () => {
  it('with no journal yet: exit 2, the exact command with the same target flags, and nothing written', async () => {
    const { kubeconfig, context, rancherContext, cluster } = sb.target;
    const stateDir = join(work, 'fresh');
    const target = ['--kubeconfig', kubeconfig!, '--context', context!, '--rancher-context', rancherContext!];
    const r = await cli([
      'migrate',
      '--resume',
      '--yes',
      '--target-version',
      '1.33',
      ...target,
      '--cluster',
      cluster!,
      '--state-dir',
      stateDir,
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('UP-MIGRATE-NOTHING-TO-RESUME');
    expect(r.stderr).toContain(
      // Every flag the user typed comes back (cli/hint-command.ts), --state-dir too: runnable as printed.
      `\`uproot migrate ${target.join(' ')} --cluster ${cluster!} --target-version 1.33 --yes --state-dir ${stateDir}\``,
    );
    expect(locks()).toEqual([]);
    expect(existsSync(stateDir)).toBe(false);
  });

  it('without the Rancher flags of the run that wrote it: exit 2, names them from the local copy, writes nothing; with them it is found', async () => {
    const stateDir = join(work, 'state');
    const first = await sb.migrate({ until: 'grant-migration-lease', stateDir });
    expect(first.exitCode, JSON.stringify(first.outcome).slice(0, 400)).toBe(0);
    const released = locks(); // the run that wrote the journal released its lock (the Lease stays)
    const { kubeconfig, context, rancherContext, cluster } = sb.target;
    const plain = ['--kubeconfig', kubeconfig!, '--context', context!, '--state-dir', stateDir];

    const r = await cli(['migrate', '--resume', '--yes', ...plain]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('UP-MIGRATE-JOURNAL-ELSEWHERE');
    expect(r.stderr).toContain(join(stateDir, 'demo', 'journal.json'));
    expect(r.stderr).toContain(`--rancher-context <rancher-context> --cluster ${cluster!}`);
    expect(locks()).toEqual(released);
    expect(readdirSync(stateDir)).toEqual(['demo']);

    // The hint as printed, with Rancher's context filled in: the journal is found (a dry run changes nothing).
    const found = await cli([
      'migrate',
      '--resume',
      '--dry-run',
      ...plain,
      '--rancher-context',
      rancherContext!,
      '--cluster',
      cluster!,
    ]);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain('Next on --resume');
  }, 120_000);
});
