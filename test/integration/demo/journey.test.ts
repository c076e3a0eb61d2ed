/**
 * `uproot demo --target-version`: the planner's hops run on the twin, which rolls its versions. Each run
 * migrates at 1.27, gates every later minor, verifies, and the twin's own account of what runs (every kubelet,
 * the control-plane pods' images, `/version`) says the target everywhere; no controller ever ran in two
 * managers (the twin's ledger).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';

interface DemoDoc {
  exitCode: number;
  migration: string;
  verify: { outcome: string; checks: { id: string; status: string; title: string; detail: string }[] };
  controllers: Record<string, { state: string; overlapSeconds?: number; maxGapSeconds?: number }>;
  report: { html: string; markdown: string };
  person?: { step: string; did: string }[];
  journey: {
    from?: string;
    to?: string;
    hops?: { step: string; version: string; state: string }[];
    restarts: {
      nodes: { machine: string; roles: string[]; restarts: number; processes: Record<string, number> }[];
      maxByRole: Partial<Record<'control-plane' | 'etcd' | 'worker', number>>;
    };
  };
  running: {
    apiServerVersion: string;
    kubelets: Record<string, string>;
    controlPlanePods: Record<string, string>;
  };
}

const root = mkdtempSync(join(tmpdir(), 'uproot-journey-demo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function demo(
  name: string,
  args: string[],
  format: 'json' | 'text' = 'json',
): Promise<{ code: number; doc?: DemoDoc; stdout: string; stderr: string }> {
  const io = recordingIo({ env: { PATH: process.env.PATH }, cwd: root });
  const code = await runCli(['demo', ...args, '--dir', join(root, name), '-o', format], io);
  const doc = format === 'json' ? (JSON.parse(io.stdoutText) as DemoDoc) : undefined;
  // A failing demo says why in its output, not on stderr: the assertion messages (stderr's tail) carry it.
  const why =
    code === 0
      ? ''
      : `\n${JSON.stringify(
          doc
            ? {
                migration: doc.migration,
                hops: doc.journey.hops,
                failed: doc.verify.checks.filter((c) => c.status === 'fail'),
              }
            : io.stdoutText.slice(-1500),
        )}`;
  return { code, ...(doc ? { doc } : {}), stdout: io.stdoutText, stderr: `${io.stderrText}${why}` };
}

/** The versioned control-plane pods (not the CCM, which has its own release). */
function controlPlaneImages(doc: DemoDoc): string[] {
  return Object.entries(doc.running.controlPlanePods)
    .filter(([pod]) => /^kube-(apiserver|controller-manager|scheduler)-/.test(pod))
    .map(([, image]) => image);
}

function expectJourney(
  doc: DemoDoc,
  expected: { kubelet: string; gitVersion: string; imageTag?: string; hops: number[] },
): void {
  expect(doc.exitCode).toBe(0);
  expect(doc.migration).toBe('ran');
  expect(doc.verify.checks.filter((c) => c.status === 'fail')).toEqual([]);
  for (const [name, c] of Object.entries(doc.controllers))
    expect(c.overlapSeconds ?? 0, `${name} ran in two managers`).toBe(0);
  // One name per controller across the 1.28 rename and the CCM aliases.
  expect(Object.keys(doc.controllers).filter((name) => name.endsWith('-controller'))).toEqual([]);
  // Migrated at 1.27 (the switch), then one gated hop per minor, each verified.
  expect(doc.journey.hops?.map((h) => Number(/^v1\.(\d+)\./.exec(h.version)?.[1]))).toEqual(expected.hops);
  expect(doc.journey.hops?.every((h) => h.state === 'verified')).toBe(true);
  expect(doc.journey.hops?.[0]?.step).toMatch(/^(switch-to-external|roll-control-plane)$/);
  expect(doc.journey.hops?.slice(1).map((h) => h.step)).toEqual(
    expected.hops.slice(1).map((m) => `upgrade-kubernetes-1.${m}`),
  );
  // The twin's account: every kubelet, /version and every control-plane pod on the target.
  const kubelets = Object.values(doc.running.kubelets);
  expect(kubelets).toHaveLength(6);
  expect(new Set(kubelets)).toEqual(new Set([expected.kubelet]));
  expect(doc.running.apiServerVersion).toBe(expected.gitVersion);
  const images = controlPlaneImages(doc);
  if (expected.imageTag) {
    expect(images.length).toBeGreaterThanOrEqual(6);
    for (const image of images) expect(image.split(':').pop()).toBe(expected.imageTag);
  } else expect(images).toEqual([]);
  // verify proves the version of the last hop, not only the migration.
  const version = doc.verify.checks.find((c) => c.id === 'kubernetes-version');
  expect(version?.status).toBe('pass');
  expect(version?.title).toContain(expected.kubelet);
}

/**
 * The twin's count of restarts (issue 24): no machine of a role restarted more than the fewest the journey
 * needs (one roll to turn leader migration on, then one per version step; the CCM's install and leader
 * migration off restart no server), and every machine of a role as often as the others.
 */
function expectRestarts(doc: DemoDoc, most: { controlPlane: number; workers: number }): void {
  const { nodes, maxByRole } = doc.journey.restarts;
  expect(maxByRole).toMatchObject({ 'control-plane': most.controlPlane, worker: most.workers });
  for (const n of nodes)
    expect(n.restarts, `${n.machine}: ${JSON.stringify(n.processes)}`).toBe(
      n.roles.includes('control-plane') ? most.controlPlane : most.workers,
    );
}

describe('uproot demo --target-version: the journey rehearsed on the twin', () => {
  it('refuses a version it cannot read before starting anything', async () => {
    const io = recordingIo({ env: { PATH: process.env.PATH }, cwd: root });
    expect(await runCli(['demo', '--target-version', 'banana', '--dir', join(root, 'never')], io)).toBe(2);
    expect(io.stderrText).toMatch(/UP-VERSION-INVALID: "banana" is not a Kubernetes version/);
    expect(io.stderrText).not.toMatch(/starting the/);
  });

  it('rke-intree to 1.33: refused before a twin starts (past RKE\u2019s last minor), nothing written, exit 2', async () => {
    const io = recordingIo({ env: { PATH: process.env.PATH }, cwd: root });
    const dir = join(root, 'rke-133');
    const code = await runCli(
      ['demo', '--scenario', 'rke-intree', '--target-version', '1.33', '--dir', dir, '-o', 'json'],
      io,
    );
    expect(code).toBe(2);
    const doc = JSON.parse(io.stdoutText) as { error: { code: string; location: { field: string } } };
    expect(doc.error).toMatchObject({
      code: 'UP-PLAN-TARGET-UNSUPPORTED',
      location: { field: '--target-version' },
    });
    expect(existsSync(dir)).toBe(false);
  }, 120_000);

  it('rke2-intree to v1.27.16+rke2r1: migrated and upgraded in the switch, the twin runs 1.27 everywhere', async () => {
    const { code, doc, stderr } = await demo('rke2-127', ['--target-version', 'v1.27.16+rke2r1']);
    expect(code, stderr.slice(-2000)).toBe(0);
    expectJourney(doc!, {
      kubelet: 'v1.27.16+rke2r1',
      gitVersion: 'v1.27.16+rke2r1',
      imageTag: 'v1.27.16-rke2r1',
      hops: [27],
    });
  }, 180_000);

  it('rke-intree to v1.27.16-rancher1-1: cluster.yml and rke up, the CCM chart by the person; RKE runs no control-plane pods', async () => {
    const { code, doc, stderr } = await demo('rke-127', [
      '--scenario',
      'rke-intree',
      '--target-version',
      'v1.27.16-rancher1-1',
    ]);
    expect(code, stderr.slice(-2000)).toBe(0);
    expectJourney(doc!, { kubelet: 'v1.27.16', gitVersion: 'v1.27.16', hops: [27] });
  }, 180_000);

  it('kubeadm-intree to v1.27.16: the person moves the manifests and the kubelet packages, uproot the managers', async () => {
    const { code, doc, stderr } = await demo('kubeadm-127', [
      '--scenario',
      'kubeadm-intree',
      '--target-version',
      'v1.27.16',
    ]);
    expect(code, stderr.slice(-2000)).toBe(0);
    expectJourney(doc!, {
      kubelet: 'v1.27.16',
      gitVersion: 'v1.27.16',
      imageTag: 'v1.27.16',
      hops: [27],
    });
    const roll = doc!.person?.find((p) => p.step === 'roll-control-plane')?.did;
    expect(roll).toMatch(/kube-apiserver:v1\.27\.16, --cloud-provider=external/);
    expect(roll).toMatch(/package 1\.27\.16-1\.1/);
    expect(roll).toMatch(/kubeadm-config: kubernetesVersion: v1\.27\.16/);
  }, 180_000);

  it('rke2-intree to v1.33.5+rke2r1: every hop gated, 1.33 everywhere, the report shows the hops', async () => {
    const { code, doc, stderr } = await demo('rke2-133', ['--target-version', 'v1.33.5+rke2r1']);
    expect(code, stderr.slice(-2000)).toBe(0);
    expectJourney(doc!, {
      kubelet: 'v1.33.5+rke2r1',
      gitVersion: 'v1.33.5+rke2r1',
      imageTag: 'v1.33.5-rke2r1',
      hops: [27, 28, 29, 30, 31, 32, 33],
    });
    expectRestarts(doc!, { controlPlane: 8, workers: 7 });
    for (const n of doc!.journey.restarts.nodes)
      expect(Object.keys(n.processes)).toContain(
        n.roles.includes('control-plane') ? 'rke2-server' : 'rke2-agent',
      );
    const md = readFileSync(doc!.report.markdown, 'utf8');
    expect(md).toContain('## Kubernetes versions');
    expect(md).toContain('| upgrade-kubernetes-1.33 | v1.33.5+rke2r1 |');
    expect(md).toMatch(/Verdict: \*\*completed\*\*/);
    // Each hop passed its own version gate before the next started.
    const steps = md
      .split('\n')
      .filter((l) => l.startsWith('| upgrade-kubernetes-1.') && l.includes('kubernetes-version: passed'));
    expect(steps).toHaveLength(6);
  }, 300_000);

  it('rke2-intree to 1.33 (a bare minor): the text says the versions it went through and what the twin runs', async () => {
    const { code, stdout, stderr } = await demo('rke2-133-text', ['--target-version', '1.33'], 'text');
    expect(code, stderr.slice(-2000)).toBe(0);
    expect(stdout).toMatch(
      /^Kubernetes v1\.26\.15\+rke2r1 → v1\.33\.\d+\+rke2r\d+, one version step at a time:$/m,
    );
    expect(stdout).toMatch(/^ {2}switch-to-external +v1\.27\.\d+\+rke2r\d+ +verified$/m);
    expect(stdout).toMatch(/^ {2}upgrade-kubernetes-1\.33 +v1\.33\.\d+\+rke2r\d+ +verified$/m);
    expect(stdout).toMatch(
      /^The twin runs: \/version (v1\.33\.\d+\+rke2r\d+); kubelets \1 on 6 of 6 nodes; control-plane pod images tagged v1\.33\.\d+-rke2r\d+\.$/m,
    );
    expect(stdout).toMatch(/^✓ the cluster runs v1\.33\.\d+\+rke2r\d+ \(upgrade-kubernetes-1\.33\)$/m);
    expect(stdout).toMatch(
      /^Restarts counted by the twin, most on one machine: control-plane 8, etcd 8, worker 7\.$/m,
    );
  }, 300_000);

  it('kubeadm-intree to 1.33: kube-apiserver loses --cloud-provider at 1.33, every kubelet package moved hop by hop', async () => {
    const { code, doc, stderr } = await demo('kubeadm-133', [
      '--scenario',
      'kubeadm-intree',
      '--target-version',
      '1.33',
    ]);
    expect(code, stderr.slice(-2000)).toBe(0);
    const target = doc!.journey.to!;
    expect(target).toMatch(/^v1\.33\.\d+$/);
    expectJourney(doc!, {
      kubelet: target,
      gitVersion: target,
      imageTag: target,
      hops: [27, 28, 29, 30, 31, 32, 33],
    });
    expect(doc!.person?.map((p) => p.step)).toEqual([
      'roll-control-plane',
      ...[28, 29, 30, 31, 32, 33].map((m) => `upgrade-kubernetes-1.${m}`),
    ]);
    expect(doc!.person?.at(-1)?.did).toMatch(/no --cloud-provider, no --cloud-config/);
    expectRestarts(doc!, { controlPlane: 8, workers: 7 });
  }, 300_000);

  it('rke-intree to 1.31, RKE\u2019s last minor: every hop by rke up, the CCM chart moved by the person each time', async () => {
    const { code, doc, stderr } = await demo('rke-131', [
      '--scenario',
      'rke-intree',
      '--target-version',
      '1.31',
    ]);
    expect(code, stderr.slice(-2000)).toBe(0);
    const kubelet = doc!.journey.to!.replace(/-rancher.*$/, '');
    expectJourney(doc!, { kubelet, gitVersion: kubelet, hops: [27, 28, 29, 30, 31] });
    expectRestarts(doc!, { controlPlane: 6, workers: 5 });
    for (const minor of [28, 29, 30, 31])
      expect(doc!.person?.find((p) => p.step === `upgrade-kubernetes-1.${minor}`)?.did).toMatch(
        new RegExp(`^helm upgrade --install .*values-v1\\.${minor}\\.`),
      );
  }, 300_000);
});
