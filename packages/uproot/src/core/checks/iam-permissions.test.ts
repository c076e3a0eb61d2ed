import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  installCcmDaemonSet,
  okValue,
  resultOf,
  snapshotWith,
  type MutableSnapshot,
} from './fixtures/mutable.js';
import { withIamEvaluation } from './evaluate-snapshot.js';
import { applyFix } from './apply-fix.js';
import { CONTROL_PLANE_ACTIONS, NODE_ECR_ACTIONS } from '../iam/index.js';
import type { PreflightSnapshot } from '../model/snapshot.js';

const role = (m: MutableSnapshot, name: 'prod-control-plane' | 'prod-node') =>
  okValue(okValue(okValue(m.aws).iam).roles[name]);

function setActions(
  m: MutableSnapshot,
  name: 'prod-control-plane' | 'prod-node',
  actions: readonly string[],
  extra: unknown[] = [],
): void {
  role(m, name).policies = [
    {
      name: 'p',
      kind: 'inline',
      document: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: [...actions], Resource: '*' }, ...extra],
      },
    },
  ];
}

const evaluated = (edit: (m: MutableSnapshot) => void) => withIamEvaluation(snapshotWith(edit));

describe('iam-control-plane / iam-nodes', () => {
  it('pass with the seed policies', async () => {
    const s = await evaluated(() => undefined);
    expect(resultOf(s, 'iam-control-plane').status).toBe('pass');
    expect(resultOf(s, 'iam-nodes')).toMatchObject({
      status: 'pass',
      details: expect.arrayContaining(['no pod runs an image from ECR: ECR actions not required']),
    });
  });

  it('accept wildcards (ec2:Describe*, elasticloadbalancing:*)', async () => {
    const s = await evaluated((m) =>
      setActions(m, 'prod-control-plane', [
        'ec2:*',
        'elasticloadbalancing:*',
        'autoscaling:Describe*',
        'iam:CreateServiceLinkedRole',
        'kms:DescribeKey',
      ]),
    );
    expect(resultOf(s, 'iam-control-plane').status).toBe('pass');
  });

  it('fail missing actions with the statement to add', async () => {
    const s = await evaluated((m) =>
      setActions(
        m,
        'prod-control-plane',
        CONTROL_PLANE_ACTIONS.filter((a) => a !== 'ec2:CreateTags' && a !== 'kms:DescribeKey'),
      ),
    );
    const r = resultOf(s, 'iam-control-plane');
    expect(r).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('role prod-control-plane: missing ec2:CreateTags, kms:DescribeKey'),
    });
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'iam-policy',
      roleName: 'prod-control-plane',
      document: {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['ec2:CreateTags', 'kms:DescribeKey'],
            Resource: '*',
          },
        ],
      },
    });
  });

  it('judge the role against the actions of the CCM release it will run, not a fixed list', async () => {
    const s = await evaluated((m) => setActions(m, 'prod-control-plane', CONTROL_PLANE_ACTIONS));
    // 1.26: the pinned v1.26.14 never calls DescribeInstanceTopology.
    expect(resultOf(s, 'iam-control-plane')).toMatchObject({
      status: 'pass',
      details: expect.arrayContaining([
        "CCM v1.26.14 (the release uproot pins for Kubernetes 1.26) calls no action beyond seed 004's policy",
      ]),
    });
    // A journey to 1.32: v1.32.8 labels nodes with their network topology.
    const r = resultOf(s, 'iam-control-plane', { targetVersion: '1.32' });
    expect(r.status).toBe('warn');
    expect(r.message).toContain(
      'role prod-control-plane: missing ec2:DescribeInstanceTopology, which CCM v1.32.8 (the release uproot pins for Kubernetes 1.32) calls (from v1.30.4, v1.31.2, v1.32.0): the CCM logs "Not authorized to perform: ec2:DescribeInstanceTopology" and nodes get no topology.k8s.aws/network-node-layer labels (node initialisation goes on)',
    );
    expect(r.status === 'warn' && r.fixes[0]).toMatchObject({
      type: 'iam-policy',
      document: { Statement: [{ Action: ['ec2:DescribeInstanceTopology'] }] },
    });
    // 1.35 adds elasticloadbalancing:SetSecurityGroups (NLB security-group mode).
    const r35 = resultOf(s, 'iam-control-plane', { targetVersion: '1.35' });
    expect(r35.status === 'warn' && r35.fixes[0]).toMatchObject({
      document: {
        Statement: [{ Action: ['ec2:DescribeInstanceTopology', 'elasticloadbalancing:SetSecurityGroups'] }],
      },
    });
    // An installed CCM counts: v1.30.4 has the topology backport, v1.30.3 does not.
    const installed = (tag: string) => (m: MutableSnapshot) => {
      setActions(m, 'prod-control-plane', CONTROL_PLANE_ACTIONS);
      installCcmDaemonSet(m, tag, []);
    };
    expect(resultOf(await evaluated(installed('v1.30.3')), 'iam-control-plane').status).toBe('pass');
    expect(resultOf(await evaluated(installed('v1.30.4')), 'iam-control-plane').status).toBe('warn');
  });

  it('fail an explicit deny and name the statement (an Allow cannot fix it)', async () => {
    const s = await evaluated((m) =>
      setActions(
        m,
        'prod-control-plane',
        ['*'],
        [{ Sid: 'NoRoutes', Effect: 'Deny', Action: 'ec2:*Route', Resource: '*' }],
      ),
    );
    const r = resultOf(s, 'iam-control-plane');
    expect(r.message).toContain('explicitly denied ec2:CreateRoute, ec2:DeleteRoute');
    expect(r.status === 'fail' && r.fixes.find((f) => f.type === 'manual')).toMatchObject({
      steps: [
        'inline policy p statement NoRoutes (ec2:*Route): denies ec2:CreateRoute',
        'inline policy p statement NoRoutes (ec2:*Route): denies ec2:DeleteRoute',
      ],
    });
  });

  it('require the ECR actions on nodes only when pods pull from ECR', async () => {
    const s = await evaluated((m) => {
      setActions(m, 'prod-node', ['ec2:DescribeInstances', 'ec2:DescribeRegions']);
      okValue(m.kube.images).push({
        image: '123456789012.dkr.ecr.us-west-2.amazonaws.com/app:1',
        pods: 2,
        example: { namespace: 'apps', name: 'api-0' },
      });
    });
    expect(resultOf(s, 'iam-nodes')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(NODE_ECR_ACTIONS[0]!),
    });
  });

  it('fail an instance without an instance profile', async () => {
    const s = await evaluated((m) => delete okValue(okValue(m.aws).instances)[4]!.iamInstanceProfileArn);
    expect(resultOf(s, 'iam-nodes').message).toContain(
      '1 instance without an instance profile: i-00001000000000004',
    );
  });

  it('skip with the reason when the profile could not be read', async () => {
    const s = await evaluated(
      (m) =>
        (okValue(okValue(m.aws).iam).profiles[0]!.roles = {
          state: 'unavailable',
          reason: 'AccessDenied on iam:GetInstanceProfile: no',
        }),
    );
    expect(resultOf(s, 'iam-control-plane')).toMatchObject({
      status: 'skip',
      reason: 'AccessDenied on iam:GetInstanceProfile: no',
    });
  });

  it('property: adding the proposed statement makes the check pass', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...CONTROL_PLANE_ACTIONS], { minLength: 1, maxLength: 8 }),
        async (removed) => {
          let s: PreflightSnapshot = await evaluated((m) =>
            setActions(
              m,
              'prod-control-plane',
              CONTROL_PLANE_ACTIONS.filter((a) => !removed.includes(a)),
            ),
          );
          const before = resultOf(s, 'iam-control-plane');
          expect(before.status).toBe('fail');
          for (const fix of before.status === 'fail' ? before.fixes : []) s = applyFix(s, fix);
          s = await withIamEvaluation(s);
          expect(resultOf(s, 'iam-control-plane').status).toBe('pass');
        },
      ),
      { numRuns: 15 },
    );
  });
});
