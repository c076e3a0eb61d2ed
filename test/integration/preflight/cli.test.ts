/**
 * `uproot preflight` end to end, in process: flags, text and JSON output, exit codes, and the distribution
 * definition from Rancher (--rancher-context/--cluster) or a file (--cluster-file).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import {
  preflightReportSchema,
  type PreflightReport,
} from '../../../packages/uproot/src/core/checks/index.js';
import { startPreflightSandbox, type PreflightSandbox } from './sandbox-cluster.js';
import { check } from './report-helpers.js';

let sandbox: PreflightSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function cli(args: string[], env: Record<string, string>) {
  const io = recordingIo({ env });
  const code = await runCli(['preflight', ...args], io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

function rke2Cluster(extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'provisioning.cattle.io/v1',
    kind: 'Cluster',
    metadata: { name: 'prod', namespace: 'fleet-default' },
    spec: {
      kubernetesVersion: 'v1.26.15+rke2r1',
      rkeConfig: {
        machineGlobalConfig: { 'cloud-provider-name': 'aws' },
        machineSelectorConfig: [
          {
            config: { 'kube-controller-manager-arg': ['cloud-provider=aws'] },
            machineLabelSelector: {
              matchExpressions: [
                { key: 'rke.cattle.io/control-plane-role', operator: 'In', values: ['true'] },
              ],
            },
          },
        ],
        ...extra,
      },
    },
  };
}

describe('uproot preflight', () => {
  it('prints a JSON report that matches the schema and exits 0 on a healthy cluster', async () => {
    sandbox = await startPreflightSandbox();
    const { code, stdout } = await cli(['--kubeconfig', sandbox.kubeconfig, '-o', 'json'], sandbox.env);
    expect(code).toBe(0);
    const report = preflightReportSchema.parse(JSON.parse(stdout)) as PreflightReport;
    expect(report).toMatchObject({
      outcome: 'pass',
      target: { distro: 'rke2', nodes: 6, region: 'us-west-2', kubernetesVersion: 'v1.26.15+rke2r1' },
    });
    expect(report.stats.kubernetes.byCall['list nodes']).toBe(1);
    expect(report.stats.aws.byCall['ec2:DescribeInstances']).toBe(1);
    expect(stdout).not.toContain(sandbox.env.AWS_SECRET_ACCESS_KEY);
  });

  it('prints a text report grouped by status and exits 1 when a check fails', async () => {
    sandbox = await startPreflightSandbox({ aws: (seed) => void (seed.instances[0]!.tags = {}) });
    const { code, stdout, stderr } = await cli(['--kubeconfig', sandbox.kubeconfig], sandbox.env);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL \(1\)\n {2}✗ cluster-tags: /m);
    expect(stdout.indexOf('FAIL (1)')).toBeLessThan(stdout.indexOf('PASS (20)'));
    expect(stdout).toContain('$ aws ec2 create-tags --region us-west-2');
    expect(stdout).toMatch(/Result: FAIL: 1 failed, 0 warnings, 0 skipped, 20 passed/);
    expect(stderr).toBe('');
  });

  it('exits 1 on warnings only with --fail-on warn', async () => {
    // A Service whose ELB is gone fails; a subnet zone without role tags only warns.
    sandbox = await startPreflightSandbox({
      aws: (seed) => void (seed.subnets![2]!.tags = { 'kubernetes.io/cluster/prod': 'shared' }),
    });
    const plain = await cli(['--kubeconfig', sandbox.kubeconfig, '-o', 'json'], sandbox.env);
    expect(plain.code).toBe(0);
    expect(check(JSON.parse(plain.stdout) as PreflightReport, 'lb-subnets').status).toBe('warn');
    const strict = await cli(
      ['--kubeconfig', sandbox.kubeconfig, '--fail-on', 'warn', '-o', 'json'],
      sandbox.env,
    );
    expect(strict.code).toBe(1);
  });

  it('shows progress on stderr only on a terminal and never with -o json', async () => {
    sandbox = await startPreflightSandbox();
    const terminal = recordingIo({ env: sandbox.env, answers: [true] });
    expect(terminal.interactive).toBe(true);
    expect(await runCli(['preflight', '--kubeconfig', sandbox.kubeconfig], terminal)).toBe(0);
    expect(terminal.stderrText).toContain('\r\x1b[2Kpreflight: EC2 instances…');
    expect(terminal.stderrText.endsWith('\r\x1b[2K')).toBe(true);
    const json = recordingIo({ env: sandbox.env, answers: [true] });
    expect(await runCli(['preflight', '--kubeconfig', sandbox.kubeconfig, '-o', 'json'], json)).toBe(0);
    expect(json.stderrText).toBe('');
  });

  it('takes -o yaml like every command (issue 25), and answers a refusal as a document', async () => {
    sandbox = await startPreflightSandbox();
    const yaml = await cli(['--kubeconfig', sandbox.kubeconfig, '-o', 'yaml'], sandbox.env);
    expect(yaml.code, yaml.stderr).toBe(0);
    const report = preflightReportSchema.parse(parse(yaml.stdout));
    expect(report.checks.length).toBeGreaterThan(0);
    const refused = await cli(
      ['--kubeconfig', sandbox.kubeconfig, '--region', 'mars', '-o', 'json'],
      sandbox.env,
    );
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      error: { code: 'UP-PREFLIGHT-REGION', location: { field: '--region' } },
      exitCode: 2,
    });
  });

  it.each([
    [['--cluster', 'prod'], '--cluster needs --rancher-context'],
    [['--rancher-context', 'admin'], '--rancher-context needs --cluster NAME'],
    [['--target-version', 'one-point-two'], '"one-point-two" is not a Kubernetes version'],
    [['--region', 'mars'], '"mars" is not an AWS region'],
    [['-o', 'xml'], 'unknown output format "xml"'],
  ])('exits 2 on bad flags %j', async (args, message) => {
    sandbox = await startPreflightSandbox();
    const { code, stderr, stdout } = await cli(['--kubeconfig', sandbox.kubeconfig, ...args], sandbox.env);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stdout).toBe('');
  });

  it('exits 2 with a clear message when the kubeconfig does not exist', async () => {
    const { code, stderr } = await cli(['--kubeconfig', '/nonexistent/kubeconfig'], {});
    expect(code).toBe(2);
    expect(stderr).toContain('kubeconfig "/nonexistent/kubeconfig" does not exist');
  });

  it('says no kubeconfig was found (KUBECONFIG, ~/.kube/config, in-cluster) and how to pass one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'uproot-no-kubeconfig-'));
    const { code, stderr } = await cli([], { HOME: home });
    expect(code).toBe(2);
    expect(stderr).toContain(
      `UP-KUBECONFIG-NONE: no kubeconfig found: KUBECONFIG is not set, ${join(home, '.kube', 'config')} does not exist, and uproot is not running in a pod`,
    );
    expect(stderr).toContain('pass --kubeconfig FILE');
    expect(stderr).not.toContain('HTTP protocol is not allowed');
  });

  it('reads the RKE2 configuration from Rancher with --rancher-context and --cluster', async () => {
    sandbox = await startPreflightSandbox();
    sandbox.api.store.create('v1/namespaces', { metadata: { name: 'fleet-default' } });
    sandbox.api.store.create('provisioning.cattle.io/v1/clusters', rke2Cluster(), {
      namespace: 'fleet-default',
    });
    const { code, stdout } = await cli(
      [
        '--kubeconfig',
        sandbox.kubeconfig,
        '--rancher-context',
        'admin',
        '--cluster',
        'fleet-default/prod',
        '--target-version',
        '1.27',
        '-o',
        'json',
      ],
      sandbox.env,
    );
    const report = JSON.parse(stdout) as PreflightReport;
    expect(code).toBe(0);
    expect(report.target).toMatchObject({
      clusterDefinition: 'Rancher cluster fleet-default/prod',
      targetVersion: '1.27',
    });
    expect(check(report, 'node-name-settings').details).toContain(
      'cloud-provider-name: aws (Rancher cluster fleet-default/prod)',
    );
    expect(report.stats.kubernetes.byCall['get clusters.provisioning.cattle.io (management)']).toBe(1);
  });

  it('judges the CCM planned in a cluster file (--cluster-file) and names the file in errors', async () => {
    sandbox = await startPreflightSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'uproot-preflight-file-'));
    const planned = join(dir, 'cluster.yaml');
    const manifest = stringify({
      apiVersion: 'helm.cattle.io/v1',
      kind: 'HelmChart',
      metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
      spec: {
        chart: 'aws-cloud-controller-manager',
        valuesContent: 'args: [--cloud-provider=aws, --enable-leader-migration=true]\n',
      },
    });
    writeFileSync(planned, stringify(rke2Cluster({ additionalManifest: manifest })));
    const { code, stdout } = await cli(
      ['--kubeconfig', sandbox.kubeconfig, '--cluster-file', planned, '-o', 'json'],
      sandbox.env,
    );
    const report = JSON.parse(stdout) as PreflightReport;
    expect(code).toBe(1);
    expect(check(report, 'control-plane-scheduling').status).toBe('fail');
    expect(check(report, 'ccm-install').message).toContain('image v1.35.0 is newer than the API server');

    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'spec:\n  rkeConfig: [\n');
    const bad = await cli(['--kubeconfig', sandbox.kubeconfig, '--cluster-file', broken], sandbox.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+`));
  });
});
