import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { migrationPlanSchema } from '../../../packages/uproot/src/core/model/plan-types.js';

const EXAMPLES = new URL('../../../packages/uproot/examples/', import.meta.url).pathname;

function tmp(): string {
  return mkdtempSync(join(os.tmpdir(), 'uproot-plan-'));
}

async function run(args: string[], cwd = tmp()) {
  const io = recordingIo({ cwd });
  const code = await runCli(['plan', ...args], io);
  return { code, out: io.stdoutText, err: io.stderrText, cwd };
}

describe('uproot plan', () => {
  it.each(['rke2', 'rke', 'rancher-rke', 'kubeadm'])(
    'plans the built-in %s example from any directory',
    async (name) => {
      const { code, out, err } = await run(['--example', name]);
      expect(err).toBe('');
      expect(code).toBe(0);
      expect(out).toContain('uproot plan:');
      expect(out).toMatch(/Enable leader migration on kube-controller-manager/);
    },
  );

  it('prints the plan document with -o json and -o yaml', async () => {
    const json = await run(['--example', 'rke2', '-o', 'json']);
    const plan = migrationPlanSchema.parse(JSON.parse(json.out));
    expect(plan.distro).toBe('rke2');
    expect(plan.artifacts.map((a) => a.path)).toContain('RUNBOOK.md');
    const yaml = await run(['--example', 'kubeadm', '-o', 'yaml']);
    expect(migrationPlanSchema.parse(parse(yaml.out)).distro).toBe('kubeadm');
  });

  it('writes every artifact with --out, then refreshes only its own files, with backups', async () => {
    const cwd = tmp();
    const first = await run(['--example', 'rke', '--out', 'out'], cwd);
    expect(first.code).toBe(0);
    expect(first.err).toMatch(/wrote \d+ file\(s\) to out/);
    const out = join(cwd, 'out');
    for (const f of [
      'RUNBOOK.md',
      'plan.json',
      '.uproot-plan.json',
      'ccm/values.yaml',
      'steps/02-enable-leader-migration/rke-cluster.yml',
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
    expect(readFileSync(join(out, 'RUNBOOK.md'), 'utf8')).toContain(
      'kubectl cordon -l "node-role.kubernetes.io/controlplane=true"',
    );
    writeFileSync(join(out, 'RUNBOOK.md'), 'edited by hand');
    writeFileSync(join(out, 'my-notes.txt'), 'keep me');
    const second = await run(['--example', 'rke', '--out', 'out'], cwd);
    expect(second.code).toBe(0);
    expect(readFileSync(join(out, '.uproot-backup/1/RUNBOOK.md'), 'utf8')).toBe('edited by hand');
    expect(readFileSync(join(out, 'my-notes.txt'), 'utf8')).toBe('keep me');
  });

  it('refuses to write into a directory it did not write, and writes nothing', async () => {
    const cwd = tmp();
    mkdirSync(join(cwd, 'out'));
    writeFileSync(join(cwd, 'out', 'cluster.yml'), 'mine');
    const { code, err } = await run(['--example', 'rke', '--out', 'out'], cwd);
    expect(code).toBe(2);
    expect(err).toContain('UP-PLAN-OUT-NOT-EMPTY');
    expect(readdirSync(join(cwd, 'out'))).toEqual(['cluster.yml']);
  });

  it('reports malformed YAML at its line and column, exit 2, nothing written', async () => {
    const cwd = tmp();
    writeFileSync(
      join(cwd, 'cluster.yaml'),
      'apiVersion: provisioning.cattle.io/v1\nkind: Cluster\nspec: [\n  a: b\n',
    );
    const { code, err } = await run(['--cluster-file', 'cluster.yaml', '--out', 'out'], cwd);
    expect(code).toBe(2);
    expect(err).toMatch(/UP-PLAN-YAML/);
    expect(err).toMatch(/cluster\.yaml:\d+:\d+/);
    expect(existsSync(join(cwd, 'out'))).toBe(false);
  });

  it('says which kinds it accepts when given something else', async () => {
    const cwd = tmp();
    writeFileSync(
      join(cwd, 'deploy.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
    );
    const { code, err } = await run(['--cluster-file', 'deploy.yaml'], cwd);
    expect(code).toBe(2);
    expect(err).toContain('a Deployment (apps/v1)');
    expect(err).toContain('kube-controller-manager static pod manifest');
  });

  it('refuses unknown and contradictory --distro, and targets RKE cannot reach', async () => {
    const unknown = await run(['--example', 'rke2', '--distro', 'k3s']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('UP-PLAN-DISTRO');
    const contradiction = await run([
      '--cluster-file',
      join(EXAMPLES, 'rke2-cluster.yaml'),
      '--distro',
      'rke',
    ]);
    expect(contradiction.code).toBe(2);
    expect(contradiction.err).toContain('UP-PLAN-DISTRO-MISMATCH');
    const rke = await run(['--example', 'rke', '--target-version', '1.33']);
    expect(rke.code).toBe(2);
    expect(rke.err).toContain('UP-PLAN-TARGET-UNSUPPORTED');
    expect(rke.err).toContain('RKE runs Kubernetes up to 1.31');
  });

  it('plans the journey from an RKE2 cluster on 1.26 to v1.33.5+rke2r1, one minor per step', async () => {
    const { code, cwd, err } = await run([
      '--cluster-file',
      join(EXAMPLES, 'rke2-cluster.yaml'),
      '--target-version',
      'v1.33.5+rke2r1',
      '--out',
      'plan',
    ]);
    expect(err).toBe('wrote 22 file(s) to plan\n');
    expect(code).toBe(0);
    const plan = migrationPlanSchema.parse(JSON.parse(readFileSync(join(cwd, 'plan', 'plan.json'), 'utf8')));
    const minors = (plan.kubernetes.upgrades ?? []).map((u) => Number(u.version.split('.')[1]));
    expect(minors).toEqual([27, 28, 29, 30, 31, 32, 33]);
    const steps = readdirSync(join(cwd, 'plan', 'steps')).sort();
    const last = parse(
      readFileSync(join(cwd, 'plan', 'steps', steps.at(-1)!, 'rke2-cluster.yaml'), 'utf8'),
    ) as { spec: { kubernetesVersion: string; rkeConfig: unknown } };
    // Each hop moves the version, then its own step moves the CCM (decision 0035).
    expect(steps.slice(-2).map((s) => s.replace(/^\d+-/, ''))).toEqual([
      'upgrade-kubernetes-1.33',
      'upgrade-ccm-1.33',
    ]);
    expect(last.spec.kubernetesVersion).toBe('v1.33.5+rke2r1');
    expect(JSON.stringify(last.spec.rkeConfig)).toMatch(/tag: v1\.33\.\d+/);
    expect(JSON.stringify(last.spec.rkeConfig)).not.toMatch(/"kube-apiserver-arg":\[[^\]]*cloud-provider/);
    expect(readFileSync(join(cwd, 'plan', 'RUNBOOK.md'), 'utf8')).toContain(
      'Journey: migrate with the upgrade to',
    );
  });

  it('exits 0 with a clear message when the cluster is already external', async () => {
    const cwd = tmp();
    const text = readFileSync(join(EXAMPLES, 'rke-cluster.yml'), 'utf8').replace(
      'name: aws',
      'name: external-aws',
    );
    writeFileSync(join(cwd, 'cluster.yml'), text);
    const { code, out } = await run(['--cluster-file', 'cluster.yml'], cwd);
    expect(code).toBe(0);
    expect(out).toContain('Nothing to do');
  });

  it('reads a kubeadm manifests directory', async () => {
    const cwd = tmp();
    mkdirSync(join(cwd, 'manifests'));
    writeFileSync(
      join(cwd, 'manifests', 'kube-controller-manager.yaml'),
      readFileSync(join(EXAMPLES, 'kube-controller-manager.yaml')),
    );
    writeFileSync(
      join(cwd, 'manifests', 'etcd.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: {name: etcd}\nspec:\n  containers: [{name: etcd, image: registry.k8s.io/etcd:3.5.9-0}]\n',
    );
    const { code, out } = await run(['--cluster-file', 'manifests', '-o', 'json'], cwd);
    expect(code).toBe(0);
    expect(JSON.parse(out).steps.map((s: { id: string }) => s.id)).toContain('roll-control-plane');
  });
});
