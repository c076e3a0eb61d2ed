import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { startHarness, whileAdvancing, type TwinHarness } from './support.js';

/**
 * The machine's `kubectl` is Google Cloud SDK's dispatcher: it asks `/version` and runs kubectl.1.27 …
 * kubectl.1.33 for the server's minor, or its default (1.32) when it has no binary for it
 * (wire-protocols.md §0). Each kubectl speaks discovery its own way (1.28 asks only for aggregated v2beta1),
 * so the twin must answer every one by its Accept header. Twins reporting 1.26, 1.27, 1.30, 1.33 and 1.34.
 */

const DAEMONSET = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: probe
  namespace: default
spec:
  selector:
    matchLabels: { app: probe }
  template:
    metadata:
      labels: { app: probe }
    spec:
      tolerations: [{ operator: Exists }]
      containers:
        - name: probe
          image: registry.k8s.io/pause:3.9
`;

const CASES = [
  // [server version, the binary the dispatcher runs]
  ['v1.26.15', /^v1\.32\./],
  ['v1.27.16', /^v1\.27\./],
  // kubectl 1.28 asks only for aggregated discovery v2beta1; 1.27 and 1.28 fetch /openapi/v2 before apply.
  ['v1.28.15', /^v1\.28\./],
  ['v1.30.4', /^v1\.30\./],
  ['v1.33.1', /^v1\.33\./],
  ['v1.34.1', /^v1\.32\./],
] as const;

describe('real kubectl through the dispatcher against twins of every version', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it.each(CASES)(
    '%s: get, watch, cordon, apply and rollout status work',
    async (version, client) => {
      const clock = new VirtualClock();
      harness = await startHarness(
        {
          name: 'kubectl-versions',
          description: `kubeadm ${version} on the external provider`,
          distribution: 'kubeadm',
          kubernetesVersion: version,
          cloudProvider: 'external',
          nodes: { controlPlane: 1, workers: 1 },
        },
        clock,
      );
      const h = harness;
      await clock.advanceBy(20_000);

      const v = await h.kubectl(['version', '-o', 'json']);
      expect(v.code, v.stderr).toBe(0);
      const parsed = JSON.parse(v.stdout) as {
        serverVersion: { gitVersion: string };
        clientVersion: { gitVersion: string };
      };
      expect(parsed.serverVersion.gitVersion).toBe(version);
      expect(parsed.clientVersion.gitVersion).toMatch(client);

      const got = await h.kubectl(['get', 'nodes']);
      expect(got.code, got.stderr).toBe(0);
      const rows = got.stdout.trim().split('\n');
      expect(rows[0]?.split(/\s+/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
      expect(rows.slice(1).map((r) => r.split(/\s+/)[4])).toEqual([version, version]);

      const watched = await watchBriefly(h, ['get', 'lease', '-n', 'kube-node-lease', '-w']);
      expect(watched.split('\n')[0]?.split(/\s+/)).toEqual(['NAME', 'HOLDER', 'AGE']);
      expect(watched.split('\n').filter((l) => l.startsWith('ip-')).length).toBeGreaterThanOrEqual(2);

      const worker = h.twin.nodes.all().find((a) => a.instance.role !== 'control-plane')!.nodeName!;
      const cordoned = await h.kubectl(['cordon', worker]);
      expect(cordoned.code, cordoned.stderr).toBe(0);
      expect(cordoned.stdout.trim()).toBe(`node/${worker} cordoned`);

      const applied = await h.kubectl(['apply', '-f', '-'], { input: DAEMONSET });
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout.trim()).toBe('daemonset.apps/probe created');
      // Again with a change: a three-way strategic merge patch.
      const changed = await h.kubectl(['apply', '-f', '-'], {
        input: DAEMONSET.replace('pause:3.9', 'pause:3.10'),
      });
      expect(changed.code, changed.stderr).toBe(0);
      expect(changed.stdout.trim()).toBe('daemonset.apps/probe configured');
      const rollout = await whileAdvancing(
        clock,
        h.kubectl(['rollout', 'status', 'daemonset/probe', '--timeout=60s']),
      );
      expect(rollout.code, rollout.stderr).toBe(0);
      expect(rollout.stdout).toContain('daemon set "probe" successfully rolled out');
    },
    120_000,
  );
});

/** Runs a watching kubectl until it printed a few lines, then stops it (as a person presses Ctrl-C). */
async function watchBriefly(h: TwinHarness, args: string[]): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'uproot-watch-'));
  try {
    const child = spawn('kubectl', args, {
      env: {
        ...process.env,
        HOME: home,
        KUBECACHEDIR: join(home, 'cache'),
        KUBECONFIG: h.twin.files.kubeconfig,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no watch output: ${err}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.split('\n').length >= 4) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill('SIGINT');
    return out;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
