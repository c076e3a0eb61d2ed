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
import { VirtualClock } from '../../../src/clock/index.js';
import { awsEnvironment } from '../../../src/sandbox/aws/index.js';
import { twinTarget } from '../../../src/sandbox/demo/twin-target.js';
import { loadScenario } from '../../../src/sandbox/scenarios/index.js';
import { startTwin } from '../../../src/sandbox/twin/index.js';
import { preflight } from '../../../src/toolkit/preflight.js';
import type { PreflightReport } from '../../../src/core/checks/index.js';
import { check, idsWith } from './report-helpers.js';

async function preflightTwin(name: string): Promise<PreflightReport> {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const dir = mkdtempSync(join(tmpdir(), 'uproot-preflight-twin-'));
  const twin = await startTwin({ scenario: loadScenario(name).scenario, clock, dir });
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
    return (await preflight({ ...target, env, cwd: dir, clock, aws: { maxAttempts: 1 } })).report;
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
  // ccm-install: the CCM next to the twin's API server version; cloud-provider-mode: once it reached
  // instance metadata, the chart's CCM (leader migration on) would run next to KCMs without it.
  'imds-hop-limit': ['cloud-provider-mode', 'ccm-install'],
  'imds-tokens-old-rke2': ['node-name-settings'],
};

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
