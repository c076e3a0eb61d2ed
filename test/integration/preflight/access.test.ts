/**
 * Access failures make the affected checks skip with the reason, never crash; only an unreachable cluster
 * stops the run. Also: preflight writes nothing (Kubernetes: only SubjectAccessReviews; AWS: only reads).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../packages/uproot/src/toolkit/preflight.js';
import { UprootError } from '../../../packages/uproot/src/errors/index.js';
import { startPreflightSandbox, type PreflightSandbox } from './sandbox-cluster.js';
import { check, idsWith } from './report-helpers.js';

const AWS_CHECKS = [
  'node-names',
  'provider-ids',
  'cluster-tags',
  'lb-subnets',
  'iam-control-plane',
  'iam-nodes',
  // Predicting the names after the switch needs the instances and their VPCs' DHCP options.
  'node-name-settings',
  'instance-metadata',
];

let sandbox: PreflightSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

beforeAll(() => {
  // The default credential chain reads the process environment: keep it away from real profiles and IMDS.
  const dir = mkdtempSync(join(tmpdir(), 'uproot-preflight-aws-'));
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
  process.env.AWS_CONFIG_FILE = join(dir, 'config');
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  delete process.env.AWS_PROFILE;
});

describe('access failures', () => {
  it('without AWS credentials the AWS checks skip and the Kubernetes checks still run', async () => {
    sandbox = await startPreflightSandbox();
    const { AWS_ACCESS_KEY_ID: _k, AWS_SECRET_ACCESS_KEY: _s, ...env } = sandbox.env;
    const { report } = await preflight({ kubeconfig: sandbox.kubeconfig, env, aws: { maxAttempts: 1 } });
    expect(idsWith(report, 'skip')).toEqual(AWS_CHECKS);
    expect(check(report, 'iam-nodes')).toMatchObject({
      status: 'skip',
      reason: expect.stringContaining('no AWS credentials'),
    });
    expect(idsWith(report, 'fail')).toEqual([]);
    expect(report.stats.aws.total).toBe(0);
  });

  it('AccessDenied on iam:GetInstanceProfile skips both IAM checks with the reason', async () => {
    sandbox = await startPreflightSandbox();
    sandbox.aws.faults.add({
      service: 'iam',
      action: 'GetInstanceProfile',
      effect: { type: 'error', code: 'AccessDenied', status: 403, message: 'not allowed' },
    });
    const { report } = await preflight({
      kubeconfig: sandbox.kubeconfig,
      env: sandbox.env,
      aws: { maxAttempts: 1 },
    });
    expect(idsWith(report, 'skip')).toEqual(['iam-control-plane', 'iam-nodes']);
    expect(check(report, 'iam-control-plane')).toMatchObject({
      reason: expect.stringMatching(/^AccessDenied on iam:GetInstanceProfile/),
    });
    expect(idsWith(report, 'fail')).toEqual([]);
  });

  it('AccessDenied on ec2:DescribeDhcpOptions skips node-name-settings only, with the reason', async () => {
    sandbox = await startPreflightSandbox();
    sandbox.aws.faults.add({
      service: 'ec2',
      action: 'DescribeDhcpOptions',
      effect: {
        type: 'error',
        code: 'UnauthorizedOperation',
        status: 403,
        message: 'You are not authorized to perform this operation.',
      },
    });
    const { report } = await preflight({
      kubeconfig: sandbox.kubeconfig,
      env: sandbox.env,
      aws: { maxAttempts: 1 },
    });
    expect(idsWith(report, 'skip')).toEqual(['node-name-settings']);
    expect(check(report, 'node-name-settings')).toMatchObject({
      reason:
        'cannot predict the node names after the switch to external: UnauthorizedOperation on ec2:DescribeDhcpOptions: You are not authorized to perform this operation.',
    });
    expect(idsWith(report, 'fail')).toEqual([]);
  });

  it('a throttled DescribeInstances is retried and the run still passes', async () => {
    sandbox = await startPreflightSandbox();
    sandbox.aws.faults.add({
      service: 'ec2',
      action: 'DescribeInstances',
      effect: { type: 'throttle' },
      times: 1,
    });
    const { report } = await preflight({
      kubeconfig: sandbox.kubeconfig,
      env: sandbox.env,
      aws: { maxAttempts: 3, retryDelayMs: () => 0 },
    });
    expect(report.outcome).toBe('pass');
    expect(report.stats.aws.byCall['ec2:DescribeInstances']).toBe(2);
  });

  it('throttling that outlasts the retries skips the instance checks with the reason', async () => {
    sandbox = await startPreflightSandbox();
    sandbox.aws.faults.add({ service: 'ec2', action: 'DescribeInstances', effect: { type: 'throttle' } });
    const { report } = await preflight({
      kubeconfig: sandbox.kubeconfig,
      env: sandbox.env,
      aws: { maxAttempts: 3, retryDelayMs: () => 0 },
    });
    expect(idsWith(report, 'skip')).toEqual(AWS_CHECKS);
    expect(check(report, 'node-names')).toMatchObject({
      reason: 'throttled on ec2:DescribeInstances (RequestLimitExceeded) after 3 attempts',
    });
    expect(report.stats.aws.byCall['ec2:DescribeInstances']).toBe(3);
  });

  it('an identity that may not list StorageClasses skips ebs-storage and nothing else', async () => {
    sandbox = await startPreflightSandbox();
    const { report } = await preflight({
      kubeconfig: sandbox.kubeconfig,
      context: 'auditor',
      env: sandbox.env,
      aws: { maxAttempts: 1 },
    });
    expect(idsWith(report, 'skip')).toEqual(['ebs-storage']);
    expect(check(report, 'ebs-storage')).toMatchObject({ reason: 'forbidden: cannot list storageclasses' });
  });

  it('an unreachable cluster is an AccessError (exit 2), not a report', async () => {
    sandbox = await startPreflightSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'uproot-preflight-down-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: down, cluster: {server: "http://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: down, context: {cluster: down, user: u}}]',
        'current-context: down',
      ].join('\n'),
    );
    const error = await preflight({ kubeconfig, env: sandbox.env }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(UprootError.is(error) && { code: error.code, exitCode: error.exitCode }).toEqual({
      code: 'UP-KUBE-ACCESS',
      exitCode: 2,
    });
  });

  it('writes nothing: Kubernetes sees only reads and SubjectAccessReviews, AWS only Describe/Get/List', async () => {
    sandbox = await startPreflightSandbox();
    sandbox.api.resetStats();
    await preflight({ kubeconfig: sandbox.kubeconfig, env: sandbox.env, aws: { maxAttempts: 1 } });
    const verbs = Object.keys(sandbox.api.stats().byVerbAndResource);
    const writes = verbs.filter((v) => !/^(get|list) /.test(v));
    expect(writes).toEqual(['create subjectaccessreviews.authorization.k8s.io']);
    const actions = new Set(sandbox.aws.log.entries().map((e) => e.action));
    expect([...actions].filter((a) => !/^(Describe|Get|List)/.test(a))).toEqual([]);
  });
});
