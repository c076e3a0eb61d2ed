import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DescribeInstancesCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from './support.js';

/** `uproot sandbox up/status/ledger/down` as a person runs them: separate processes, real time. */

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = ['--conditions=uproot-source', '--import', 'tsx', join(ROOT, 'packages/uproot/src/cli/main.ts')];

function uproot(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return run(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
}

function awsEnv(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^export ([A-Z_]+)='?([^']*)'?$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

describe('uproot sandbox', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) {
      if (existsSync(join(dir, 'sandbox.json'))) await uproot(['sandbox', 'down', '--dir', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('up --detach serves the empty scenario until down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-sandbox-cli-'));
    dirs.push(dir);
    const up = await uproot([
      'sandbox',
      'up',
      '--scenario',
      'empty',
      '--detach',
      '--dir',
      dir,
      '--time-scale',
      '10',
    ]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain(`export KUBECONFIG=${join(dir, 'kubeconfig')}`);
    expect(up.stdout).toContain(`source ${join(dir, 'aws.env')}`);
    const statePath = join(dir, 'sandbox.json');
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'kubeconfig')).mode & 0o777).toBe(0o600);
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as { pid: number; control: { url: string } };
    expect(state.control.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // Sped up, the twin says how uproot follows its clock (decision 0034), and the line works as printed.
    const clockUrl = `${state.control.url}/v1/clock`;
    expect(up.stdout).toContain(`export UPROOT_CLOCK_URL=${clockUrl}`);
    const { nowMs } = (await (await fetch(clockUrl)).json()) as { nowMs: number };
    // Ten twin seconds pass per real second since it started: its time is at or past this machine's.
    expect(nowMs).toBeGreaterThanOrEqual(Date.now());
    const followed = await uproot(['plan', '--example', 'rke2', '-o', 'json'], {
      UPROOT_CLOCK_URL: clockUrl,
    });
    expect(followed.code, followed.stderr).toBe(0);

    // The API server, with Rancher's CRDs preloaded.
    const home = mkdtempSync(join(tmpdir(), 'uproot-sandbox-home-'));
    const crds = await run('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), 'get', 'crd', '-o', 'name'], {
      env: { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') },
    });
    rmSync(home, { recursive: true, force: true });
    expect(crds.code, crds.stderr).toBe(0);
    expect(crds.stdout).toContain('clusters.provisioning.cattle.io');
    expect(crds.stdout).toContain('helmcharts.helm.cattle.io');

    // The AWS account: one VPC, its subnets, no instances.
    const env = awsEnv(join(dir, 'aws.env'));
    const ec2 = new EC2Client({
      endpoint: env.AWS_ENDPOINT_URL!,
      region: env.AWS_REGION!,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
      maxAttempts: 1,
    });
    expect((await ec2.send(new DescribeVpcsCommand({}))).Vpcs).toHaveLength(1);
    expect((await ec2.send(new DescribeSubnetsCommand({}))).Subnets).toHaveLength(3);
    expect((await ec2.send(new DescribeInstancesCommand({}))).Reservations ?? []).toHaveLength(0);
    ec2.destroy();

    const status = await uproot(['sandbox', 'status', '--dir', dir, '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      scenario: 'empty',
      distribution: 'none',
      nodes: { registered: 0 },
    });
    const ledger = await uproot(['sandbox', 'ledger', '--dir', dir, '-o', 'json']);
    expect(ledger.code, ledger.stderr).toBe(0);
    expect(JSON.parse(ledger.stdout)).toMatchObject({
      controllers: {},
      journey: { restarts: { nodes: [], maxByRole: {} } },
    });

    const again = await uproot(['sandbox', 'up', '--scenario', 'empty', '--dir', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('UP-SANDBOX-RUNNING');

    const down = await uproot(['sandbox', 'down', '--dir', dir]);
    expect(down.code, down.stderr).toBe(0);
    expect(existsSync(statePath)).toBe(false);
    expect(existsSync(join(dir, 'kubeconfig'))).toBe(false);
    // The clock is gone with the twin: a command following it stops before it starts, saying what to do.
    const orphan = await uproot(['plan', '--example', 'rke2'], { UPROOT_CLOCK_URL: clockUrl });
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain('UP-CLOCK-UNREACHABLE');
    expect(orphan.stderr).toContain('unset UPROOT_CLOCK_URL');
    let alive = true;
    try {
      process.kill(state.pid, 0);
    } catch {
      alive = false;
    }
    expect(alive).toBe(false);
  }, 300_000);

  it('up in the foreground stops cleanly on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-sandbox-cli-'));
    dirs.push(dir);
    const child = spawn(process.execPath, [...CLI, 'sandbox', 'up', '--scenario', 'empty', '--dir', dir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const deadline = Date.now() + 60_000;
    while (!out.includes('serving until') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('serving until');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('sandbox stopped');
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });

  it('rejects a bad scenario with its file, line and field, and starts nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-sandbox-cli-'));
    dirs.push(dir);
    const result = await uproot([
      'sandbox',
      'up',
      '--scenario',
      join(ROOT, 'test/integration/twin/fixtures/bad-scenario.yaml'),
      '--dir',
      dir,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('UP-SCENARIO-INVALID');
    expect(result.stderr).toMatch(/bad-scenario\.yaml:5/);
    expect(result.stderr).toContain('nodes.controlPlanes');
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });
});
