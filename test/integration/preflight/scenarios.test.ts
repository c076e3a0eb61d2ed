/**
 * Preflight against the built-in twins, as `uproot demo` runs it (the Rancher context or cluster file, the
 * AWS emulator's admin key): every scenario fails exactly the checks that judge what it breaks, and nothing
 * else. custom-dhcp-domain is the one a look at today's node names cannot catch: only the names predicted
 * from the VPC's DHCP options after the switch to external are wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { twinTarget } from '../../../packages/sandbox/src/demo/twin-target.js';
import {
  loadScenario,
  parseScenario,
  type ScenarioInput,
} from '../../../packages/sandbox/src/scenarios/index.js';
import { startTwin } from '../../../packages/sandbox/src/twin/index.js';
import { preflight } from '../../../packages/uproot/src/toolkit/preflight.js';
import type { PreflightReport } from '../../../packages/uproot/src/core/checks/index.js';
import { check, idsWith } from './report-helpers.js';

async function preflightTwin(name: string | ScenarioInput, targetVersion?: string): Promise<PreflightReport> {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const dir = mkdtempSync(join(tmpdir(), 'uproot-preflight-twin-'));
  const scenario = typeof name === 'string' ? loadScenario(name).scenario : parseScenario(name);
  const twin = await startTwin({ scenario, clock, dir });
  // Let the twin settle (leases held, nodes registered), then keep virtual time moving while preflight waits.
  await clock.advanceBy(20_000);
  let driving = true;
  const driver = (async () => {
    while (driving) await clock.advanceBy(250);
  })();
  try {
    const env = {
      PATH: process.env.PATH ?? '',
      ...awsEnvironment(twin.aws),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const { target } = twinTarget(twin, clock);
    return (
      await preflight({
        ...target,
        env,
        cwd: dir,
        clock,
        aws: { maxAttempts: 1 },
        ...(targetVersion ? { targetVersion } : {}),
      })
    ).report;
  } finally {
    driving = false;
    await driver;
    await twin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What each built-in scenario fails (kubeadm-intree: the lease RBAC its plan grants itself). */
const EXPECTED_FAILURES: Record<string, string[]> = {
  'rke2-intree': [],
  'rke-intree': [],
  'kubeadm-intree': ['migration-lease-rbac'],
  'short-hostnames': [],
  'custom-dhcp-domain': ['node-name-settings'],
  'missing-cluster-tag': ['cluster-tags'],
  'two-tagged-security-groups': ['cluster-tags'],
  'iam-gap-control-plane': ['iam-control-plane'],
  'no-migration-lease-rbac': ['migration-lease-rbac'],
  'missing-ebs-csi': ['ebs-storage'],
  'chart-selector-mismatch': ['cloud-provider-mode', 'control-plane-scheduling', 'ccm-install'],
  'rke2-external': ['cloud-provider-mode'],
  'rke2-separate-pools': [],
  'rke2-user-strategy': [],
  // The CCM is there (so the mode is mixed, without leader migration) but tolerates no control-plane node.
  'ccm-tolerations-miss-etcd': ['cloud-provider-mode', 'control-plane-scheduling', 'ccm-install'],
  'ccm-known-bad': ['ccm-release'],
  'ccm-topology-permission': [],
  'lb-type-mismatch': ['iam-control-plane', 'lb-type'],
  'rke2-upgraded-intree': ['in-tree-after-removal'],
  'rke2-ecr-images': [],
  // ccm-install: the chart's default RBAC lets the CCM's service account create, not get, service accounts;
  // cloud-provider-mode: once it reached instance metadata, the chart's CCM (leader migration on) would run
  // next to KCMs without it.
  'imds-hop-limit': ['cloud-provider-mode', 'ccm-install'],
  'imds-tokens-old-rke2': ['node-name-settings'],
};

/** Chart values that tolerate Rancher's control-plane taint (no value, as the chart's default) but not etcd's. */
const VALUES_WITHOUT_ETCD = {
  hostNetworking: true,
  image: { tag: 'v1.26.14' },
  nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
  tolerations: [
    { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
  ],
  args: ['--v=2', '--cloud-provider=aws'],
};

function rke2WithValuesWithoutEtcd(nodes: ScenarioInput['nodes']): ScenarioInput {
  return {
    name: 'values-without-etcd',
    description: 'RKE2 with a CCM chart whose tolerations miss the etcd taint',
    distribution: 'rke2',
    kubernetesVersion: 'v1.26.15+rke2r1',
    clusterName: 'demo',
    nodes,
    ccm: { values: VALUES_WITHOUT_ETCD },
  };
}

describe('preflight against the built-in twins', () => {
  it('custom-dhcp-domain fails node-name-settings alone, naming the predicted names and the settings to change', async () => {
    const report = await preflightTwin('custom-dhcp-domain');
    expect(idsWith(report, 'fail')).toEqual(['node-name-settings']);
    // Today's names are EC2's private DNS names: nothing to see there.
    expect(check(report, 'node-names').status).toBe('pass');
    const result = check(report, 'node-name-settings');
    expect(result.message).toMatch(
      /6 of 6 nodes would register under names EC2 cannot resolve .*ip-10-0-0-10\.ec2\.internal would become ip-10-0-0-10\.corp\.example\.com/,
    );
    expect(result.message).toContain('instance metadata local-hostname carries the VPC');
    expect(result.status === 'fail' && result.fixes.map((f) => f.description)).toEqual([
      expect.stringContaining('set node-name on each machine'),
      expect.stringMatching(
        /^or give VPC vpc-\w+ DHCP options whose domain-name is EC2's own \(ec2\.internal; today: corp\.example\.com\)/,
      ),
    ]);
    expect(report.stats.aws.byCall['ec2:DescribeDhcpOptions']).toBe(1);
  });

  it("fails chart values that miss Rancher's etcd taint on combined etcd + control-plane nodes, naming taint, nodes and toleration", async () => {
    const report = await preflightTwin(rke2WithValuesWithoutEtcd({ controlPlane: 3, etcd: 0, workers: 3 }));
    const result = check(report, 'control-plane-scheduling');
    expect(result.status).toBe('fail');
    const cpNodes = ['ip-10-0-0-10.ec2.internal', 'ip-10-0-16-10.ec2.internal', 'ip-10-0-32-10.ec2.internal'];
    // Judged twice: the HelmChart the twin's Rancher applied, and the one in the provisioning Cluster.
    expect(result.message).toMatch(
      /^(DaemonSet|HelmChart|.*additionalManifest).* selects 3 control-plane nodes but tolerates none of them/,
    );
    expect(result.message).toContain(`node-role.kubernetes.io/etcd:NoExecute on ${cpNodes.join(', ')}`);
    expect(result.message).not.toContain('node-role.kubernetes.io/control-plane:NoSchedule on');
    expect(result.message).toContain(
      'add the toleration {key: node-role.kubernetes.io/etcd, operator: Exists, effect: NoExecute}',
    );
    const fixes = result.status === 'fail' ? result.fixes : [];
    expect(fixes.length).toBeGreaterThan(0);
    for (const fix of fixes) expect(JSON.stringify(fix)).toContain('node-role.kubernetes.io/etcd');
  });

  it('passes the same values when etcd runs in its own pool: the CCM selects only control-plane-only nodes', async () => {
    const report = await preflightTwin(rke2WithValuesWithoutEtcd({ controlPlane: 2, etcd: 3, workers: 1 }));
    expect(check(report, 'control-plane-scheduling')).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('the CCM fits all 2 control-plane nodes'),
    });
  });

  it('ccm-known-bad fails ccm-release with the exact release to move to', async () => {
    const report = await preflightTwin('ccm-known-bad');
    const result = check(report, 'ccm-release');
    expect(result.message).toMatch(
      /^DaemonSet kube-system\/aws-cloud-controller-manager: v1\.26\.11 — node addresses not ordered by network-interface device index/,
    );
    expect(result.status === 'fail' && result.fixes[0]).toMatchObject({
      type: 'config',
      snippet: 'image:\n  tag: v1.26.14\n',
      commands: [
        "kubectl -n kube-system set image daemonset/aws-cloud-controller-manager '*=registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.14'",
      ],
    });
  });

  it('ccm-topology-permission warns iam-control-plane for the CCM release that calls DescribeInstanceTopology', async () => {
    const report = await preflightTwin('ccm-topology-permission');
    const result = check(report, 'iam-control-plane');
    expect(result.status).toBe('warn');
    expect(result.message).toContain(
      'missing ec2:DescribeInstanceTopology, which CCM v1.32.8 (DaemonSet kube-system/aws-cloud-controller-manager) calls',
    );
    expect(result.status === 'warn' && result.fixes[0]).toMatchObject({
      type: 'iam-policy',
      roleName: 'demo-control-plane',
      document: { Statement: [{ Action: ['ec2:DescribeInstanceTopology'] }] },
    });
  });

  it('lb-type-mismatch names the Service, the load balancer serving it, and the annotation to remove', async () => {
    const report = await preflightTwin('lb-type-mismatch');
    const result = check(report, 'lb-type');
    expect(result.message).toMatch(
      /^Service default\/web is served by classic ELB \S+\.us-east-1\.elb\.amazonaws\.com but its service\.beta\.kubernetes\.io\/aws-load-balancer-type annotation asks for an NLB/,
    );
    expect(result.status === 'fail' && result.fixes[0]).toMatchObject({
      type: 'commands',
      commands: [
        'kubectl -n default annotate service web service.beta.kubernetes.io/aws-load-balancer-type-',
      ],
    });
    // api is a plain classic ELB: fine.
    expect(result.resources).toEqual([{ kind: 'Service', name: 'web', namespace: 'default' }]);
  });

  it('rke2-intree with --target-version v1.27.16: the twin is 1.26, so the hop the real cluster takes is allowed', async () => {
    const report = await preflightTwin('rke2-intree', 'v1.27.16');
    expect(report.target.kubernetesVersion).toBe('v1.26.15+rke2r1');
    expect(check(report, 'kubernetes-version')).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('migrate as part of the upgrade to 1.27'),
    });
  });

  it('rke2-upgraded-intree: says the 1.27 kubelets cannot start and sets the version back', async () => {
    const report = await preflightTwin('rke2-upgraded-intree');
    const result = check(report, 'in-tree-after-removal');
    expect(result.status).toBe('fail');
    expect(result.details).toContain(
      'Rancher cluster fleet-default/demo: control-plane nodes on v1.27.16+rke2r1: the kubelet exits (failed to run Kubelet: unknown cloud provider "aws"); RKE2 does not start and Rancher stops at the first node it upgrades (rancher/rke2#4183)',
    );
    expect(result.status === 'fail' && result.fixes[0]).toMatchObject({
      type: 'config',
      snippet: 'spec:\n  kubernetesVersion: v1.26.15+rke2r1\n',
    });
    // The API server still answers as 1.26: the first server's old apiserver container runs on.
    expect(report.target.kubernetesVersion).toBe('v1.26.15+rke2r1');
  });

  it('imds-hop-limit warns that the pod-network CCM cannot reach instance metadata, with both fixes', async () => {
    const report = await preflightTwin('imds-hop-limit');
    const result = check(report, 'instance-metadata');
    expect(result.status).toBe('warn');
    expect(result.message).toMatch(
      /^the aws-cloud-controller-manager \(DaemonSet kube-system\/aws-cloud-controller-manager, .*\) runs on the pod network/,
    );
    expect(result.message).toContain('3 control-plane instances let the metadata token');
    expect(result.status === 'warn' && result.fixes.map((f) => f.type).slice(0, 2)).toEqual([
      'config',
      'commands',
    ]);
    expect(JSON.stringify(result)).toContain('--http-put-response-hop-limit 2');
  });

  it('imds-tokens-old-rke2 names the token-less lookup and the names it leads to', async () => {
    const report = await preflightTwin('imds-tokens-old-rke2');
    const result = check(report, 'instance-metadata');
    expect(result.status).toBe('warn');
    expect(result.message).toContain('RKE2 v1.26.15+rke2r1 names nodes from instance metadata');
    expect(result.message).toContain('rancher/rke2#7343');
    const names = check(report, 'node-name-settings');
    expect(names.message).toContain('would become ip-10-0-0-10 (');
    expect(names.message).toContain('falls back to hostname -f');
  });

  it.each(Object.entries(EXPECTED_FAILURES))('%s fails exactly %j', async (name, failing) => {
    const report = await preflightTwin(name);
    expect(idsWith(report, 'fail')).toEqual(failing);
    if (!failing.includes('node-name-settings')) {
      expect(check(report, 'node-name-settings').status).not.toBe('skip');
    }
  });
});
