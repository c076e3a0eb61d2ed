import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import { applyFix } from './apply-fix.js';
import type { Fix } from './check-result.js';

const instances = (m: MutableSnapshot) => okValue(okValue(m.aws).instances);
const groups = (m: MutableSnapshot) => okValue(okValue(m.aws).securityGroups);
const EXTRA_SG = 'sg-0000000000000bbbb';

function addTaggedGroup(m: MutableSnapshot, attachTo: readonly number[]): void {
  groups(m).push({
    groupId: EXTRA_SG,
    groupName: 'elb',
    vpcId: 'vpc-00000001',
    tags: { 'kubernetes.io/cluster/prod': 'owned' },
  });
  for (const i of attachTo) instances(m)[i]!.securityGroupIds.push(EXTRA_SG);
}

function fixesOf(r: ReturnType<typeof resultOf>): Fix[] {
  return r.status === 'fail' || r.status === 'warn' ? r.fixes : [];
}

describe('cluster-tags', () => {
  it('passes a consistently tagged cluster', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'cluster-tags',
      ),
    ).toMatchObject({ status: 'pass', message: expect.stringContaining('cluster prod') });
  });

  it('fails an instance without the tag and proposes create-tags', () => {
    const s = snapshotWith((m) => (instances(m)[2]!.tags = {}));
    const r = resultOf(s, 'cluster-tags');
    expect(r).toMatchObject({
      status: 'fail',
      resources: [{ kind: 'Instance', name: 'i-00001000000000002' }],
    });
    expect(fixesOf(r)[0]).toMatchObject({
      type: 'ec2-tags',
      create: [{ resourceIds: ['i-00001000000000002'], key: 'kubernetes.io/cluster/prod', value: 'owned' }],
      remove: [],
      commands: [
        'aws ec2 create-tags --region us-west-2 --resources i-00001000000000002 --tags Key=kubernetes.io/cluster/prod,Value=owned',
      ],
    });
  });

  it('fails a legacy KubernetesCluster tag that names another cluster', () => {
    const s = snapshotWith((m) => (instances(m)[0]!.tags['KubernetesCluster'] = 'staging'));
    expect(resultOf(s, 'cluster-tags').message).toContain(
      'clusterID tags did not match: KubernetesCluster=staging vs kubernetes.io/cluster/prod',
    );
  });

  it("fails an instance with two tagged security groups, with the CCM's message", () => {
    const s = snapshotWith((m) => addTaggedGroup(m, [1]));
    const r = resultOf(s, 'cluster-tags');
    expect(r.message).toContain(
      'Multiple tagged security groups found for instance i-00001000000000001; ensure only the k8s security group is tagged',
    );
    expect(fixesOf(r)[0]).toMatchObject({
      remove: [{ resourceIds: [EXTRA_SG], key: 'kubernetes.io/cluster/prod' }],
    });
  });

  it('fails several untagged groups, warns a single untagged one', () => {
    const several = snapshotWith((m) => {
      groups(m)[0]!.tags = {};
      groups(m).push({ groupId: EXTRA_SG, groupName: 'other', tags: {} });
      instances(m)[0]!.securityGroupIds.push(EXTRA_SG);
    });
    expect(resultOf(several, 'cluster-tags').message).toContain(
      'multiple untagged security groups found for instance i-00001000000000000',
    );
    const single = snapshotWith((m) => (groups(m)[0]!.tags = {}));
    expect(resultOf(single, 'cluster-tags')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('accepted for backward compatibility'),
    });
  });

  it('warns an untagged node subnet', () => {
    const s = snapshotWith((m) => (okValue(okValue(m.aws).subnets)[1]!.tags = {}));
    expect(resultOf(s, 'cluster-tags')).toMatchObject({
      status: 'warn',
      resources: [{ kind: 'Subnet', name: 'subnet-00000000000000001' }],
    });
  });

  it('fails with a placeholder when no instance carries any cluster tag', () => {
    const s = snapshotWith((m) => instances(m).forEach((i) => (i.tags = {})));
    const r = resultOf(s, 'cluster-tags');
    expect(r.message).toContain('the CCM finds no ClusterID');
    expect(fixesOf(r)[0]).toMatchObject({
      type: 'commands',
      commands: [expect.stringContaining('Key=kubernetes.io/cluster/CLUSTER_ID,Value=owned')],
    });
    expect(resultOf(s, 'cluster-tags', { clusterId: 'prod' }).status).toBe('fail');
  });

  it('skips without instances', () => {
    const s = snapshotWith(
      (m) =>
        (okValue(m.aws).instances = {
          state: 'unavailable',
          reason: 'AccessDenied on ec2:DescribeInstances',
        }),
    );
    expect(resultOf(s, 'cluster-tags')).toMatchObject({
      status: 'skip',
      reason: 'AccessDenied on ec2:DescribeInstances',
    });
  });

  it('property: the tag fixes, applied, make the check pass', () => {
    const breakage = fc.constantFrom(
      'none',
      'missing',
      'other-cluster',
      'extra-cluster',
      'legacy',
      'bad-value',
    );
    fc.assert(
      fc.property(
        fc.array(breakage, { minLength: 6, maxLength: 6 }),
        fc.subarray([0, 1, 2, 3, 4, 5]),
        fc.subarray([0, 1, 2]),
        (perInstance, extraGroup, untaggedSubnets) => {
          let s = snapshotWith((m) => {
            perInstance.forEach((b, i) => {
              const tags = instances(m)[i]!.tags;
              if (b === 'missing') delete tags['kubernetes.io/cluster/prod'];
              if (b === 'other-cluster') {
                delete tags['kubernetes.io/cluster/prod'];
                tags['kubernetes.io/cluster/staging'] = 'owned';
              }
              if (b === 'extra-cluster') tags['kubernetes.io/cluster/staging'] = 'owned';
              if (b === 'legacy') tags['KubernetesCluster'] = 'staging';
              if (b === 'bad-value') tags['kubernetes.io/cluster/prod'] = 'yes';
            });
            if (extraGroup.length > 0) addTaggedGroup(m, extraGroup);
            for (const i of untaggedSubnets) okValue(okValue(m.aws).subnets)[i]!.tags = {};
          });
          const options = { clusterId: 'prod' };
          const before = resultOf(s, 'cluster-tags', options);
          for (const fix of fixesOf(before)) s = applyFix(s, fix);
          expect(resultOf(s, 'cluster-tags', options)).toMatchObject({ status: 'pass' });
        },
      ),
      { numRuns: 200 },
    );
  });
});
