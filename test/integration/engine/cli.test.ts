import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import {
  DEFAULT_ADMIN,
  startKubeApiServer,
  writeKubeconfig,
  type KubeApiServer,
} from '../../../packages/sandbox/src/apiserver/index.js';
import { seedCluster } from './harness.js';
import { autoRollOut, seedLoadBalancer, smallPlan } from './small-plan.js';

let server: KubeApiServer;
let dir: string;
let kubeconfig: string;
let planFile: string;

beforeEach(async () => {
  server = await startKubeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'uproot-cli-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, [server.kubeconfigEntry(DEFAULT_ADMIN, { contextName: 'sandbox' })], 'sandbox');
  seedCluster(server, 3);
  seedLoadBalancer(server);
  autoRollOut(server);
  planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(smallPlan()));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = async (args: string[], answers?: boolean[], signal?: AbortSignal) => {
  const io = recordingIo({ cwd: dir, env: {}, ...(answers ? { answers } : {}) });
  if (signal) Object.assign(io, { signal });
  const code = await runCli(args, io);
  return { code, out: io.stdoutText, err: io.stderrText };
};

describe('uproot migrate / status / rollback (CLI)', () => {
  it('refuses to change the cluster without a terminal or --yes (exit 2, nothing written)', async () => {
    const r = await cli(['migrate', '--kubeconfig', kubeconfig, '--plan', planFile, '--skip-preflight']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/UP-MIGRATE-CONFIRM.*\n.*\n?.*fix: .*--yes/);
    expect(server.store.get('v1/configmaps', 'kube-system', 'uproot-migration')).toBeUndefined();
  });

  it('shows the plan on --dry-run and changes nothing', async () => {
    const r = await cli(['migrate', '--kubeconfig', kubeconfig, '--plan', planFile, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('grant-migration-lease');
    expect(r.out).toContain('Dry run: nothing was changed.');
    expect(server.store.get('v1/configmaps', 'kube-system', 'uproot-migration')).toBeUndefined();
  });

  it('migrates with --yes, reports progress, then status shows it and rollback undoes it', async () => {
    const m = await cli([
      'migrate',
      '--kubeconfig',
      kubeconfig,
      '--plan',
      planFile,
      '--yes',
      '--skip-preflight',
    ]);
    expect(m.err).toContain('→ cordon-control-plane');
    expect(m.err).toMatch(/✓ daemonset kube-system\/aws-cloud-controller-manager rolled out/);
    expect(m.out).toContain('complete: all 4 steps verified');
    expect(m.code).toBe(0);

    const s = await cli(['status', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(s.code).toBe(0);
    const report = JSON.parse(s.out) as {
      source: string;
      phase: { type: string };
      steps: { state: string }[];
      leases: { name: string }[];
      overlaps: unknown[];
    };
    expect(report.source).toBe('cluster');
    // Judged like the gate (holders profiled from their pods and the plan): no false alarm after a clean run.
    expect(report.overlaps).toEqual([]);
    expect(report.phase.type).toBe('completed');
    expect(report.steps.map((x) => x.state)).toEqual(['verified', 'verified', 'verified', 'verified']);
    expect(report.leases.map((l) => l.name).sort()).toEqual([
      'cloud-provider-extraction-migration',
      'kube-controller-manager',
    ]);

    const again = await cli([
      'migrate',
      '--kubeconfig',
      kubeconfig,
      '--plan',
      planFile,
      '--yes',
      '--resume',
      '-o',
      'json',
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ outcome: 'already-completed' });

    const rb = await cli(['rollback', '--kubeconfig', kubeconfig, '-o', 'json'], [true]);
    expect(rb.code).toBe(0);
    expect(JSON.parse(rb.out)).toMatchObject({
      outcome: 'ran',
      result: 'rolled-back',
      steps: ['roll-control-plane', 'install-ccm', 'cordon-control-plane', 'grant-migration-lease'],
    });
    expect(
      server.store.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager'),
    ).toBeUndefined();
  });

  it('a gate that cannot pass stops the run with its stable code (exit 1), in text and JSON', async () => {
    const plan = smallPlan();
    const first = plan.steps[0]!;
    writeFileSync(
      planFile,
      JSON.stringify({
        ...plan,
        steps: [
          { ...first, gates: [{ type: 'nodes-cordoned', selector: 'no-such-label=x', timeoutSeconds: 1 }] },
          ...plan.steps.slice(1),
        ],
      }),
    );
    const flags = ['--kubeconfig', kubeconfig, '--plan', planFile, '--yes', '--gate-timeout-scale', '0.01'];
    const json = await cli(['migrate', ...flags, '--skip-preflight', '-o', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({
      result: 'gate-failed',
      code: 'UP-GATE-NODES-CORDONED',
      gate: { type: 'nodes-cordoned' },
    });
    const text = await cli(['migrate', ...flags, '--resume']);
    expect(text.code).toBe(1);
    expect(text.out + text.err).toMatch(
      /error UP-GATE-NODES-CORDONED: step grant-migration-lease did not verify/,
    );
  });

  it('asks at a terminal and does nothing when declined (exit 0: nothing done, nothing to resume)', async () => {
    const r = await cli(
      ['migrate', '--kubeconfig', kubeconfig, '--plan', planFile, '--skip-preflight'],
      [false],
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('Declined: nothing was changed.');
    expect(
      (server.store.get('v1/nodes', undefined, 'cp-1')!.spec as { unschedulable?: boolean }).unschedulable,
    ).not.toBe(true);
  });

  it('rejects a malformed plan file with its path and field (exit 2)', async () => {
    writeFileSync(planFile, JSON.stringify({ ...smallPlan(), schemaVersion: 'v0' }));
    const r = await cli([
      'migrate',
      '--kubeconfig',
      kubeconfig,
      '--plan',
      planFile,
      '--yes',
      '--skip-preflight',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('UP-MIGRATE-PLAN');
    expect(r.err).toContain(`at ${planFile}, field schemaVersion`);
  });
});

describe('exit codes as the README table says, over every command', () => {
  const COMMANDS = ['preflight', 'plan', 'migrate', 'verify', 'status', 'rollback', 'report', 'demo'];

  it('invalid input is 2 everywhere: an unknown flag, an unknown -o, a --target-version that is no version', async () => {
    for (const command of COMMANDS) {
      const r = await cli([command, '--no-such-flag']);
      expect(r.code, `${command}: ${r.err}`).toBe(2);
    }
    for (const command of ['preflight', 'plan', 'migrate', 'verify', 'status', 'rollback']) {
      const r = await cli([command, '--kubeconfig', kubeconfig, '-o', 'bogus']);
      expect(r.code, `${command}: ${r.err}`).toBe(2);
    }
    for (const [command, ...target] of [
      ['preflight', '--kubeconfig', kubeconfig],
      ['plan', '--example', 'rke2'],
      ['migrate', '--kubeconfig', kubeconfig, '--dry-run'],
      ['demo'],
    ]) {
      const r = await cli([command!, '--target-version', 'one-point-two', ...target]);
      expect(r.code, `${command}: ${r.err}`).toBe(2);
      // migrate refuses what it misses first (the cluster definition here), also as input.
      if (command !== 'migrate') expect(r.err).toContain('is not a Kubernetes version');
    }
  });

  it('checks failed is 1: verify on a cluster not migrated', async () => {
    const r = await cli(['verify', '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Not verified');
  });

  it('declined is 0 with nothing done, for migrate and rollback', async () => {
    const flags = ['--kubeconfig', kubeconfig, '--plan', planFile, '--skip-preflight'];
    const declined = await cli(['migrate', ...flags], [false]);
    expect([declined.code, declined.out]).toEqual([0, expect.stringContaining('Declined')]);
    expect(server.store.get('v1/configmaps', 'kube-system', 'uproot-migration')).toBeUndefined();
    expect((await cli(['migrate', ...flags, '--yes'])).code).toBe(0);
    const before = server.store.get('v1/configmaps', 'kube-system', 'uproot-migration')?.metadata;
    const rb = await cli(['rollback', '--kubeconfig', kubeconfig], [false]);
    expect(rb.code).toBe(0);
    expect(rb.out).toContain('Declined: nothing was changed.');
    expect(server.store.get('v1/configmaps', 'kube-system', 'uproot-migration')?.metadata).toEqual(before);
  });

  it('interrupted is 130, and the printed hint continues it', async () => {
    const flags = ['--kubeconfig', kubeconfig, '--plan', planFile, '--skip-preflight', '--yes'];
    const r = await cli(['migrate', ...flags], undefined, AbortSignal.abort(new Error('interrupted')));
    expect(r.code, r.out + r.err).toBe(130);
    expect(r.out).toContain(`Continue with \`uproot migrate --resume --kubeconfig ${kubeconfig}\``);
    // Without a terminal the person adds --yes, as the refusal to go on without one says.
    const resumed = await cli(['migrate', '--resume', '--kubeconfig', kubeconfig, '--yes']);
    expect(resumed.code, resumed.out + resumed.err).toBe(0);
    expect(resumed.out).toContain('complete');
  });
});
