import { describe, expect, it } from 'vitest';
import type { Instance, RouteTable, Subnet } from '@aws-sdk/client-ec2';
import { chooseElbSubnets, securityGroupForInstance } from './elb-network.js';

const subnet = (id: string, az: string, tags: Record<string, string> = {}): Subnet => ({
  SubnetId: id,
  AvailabilityZone: az,
  VpcId: 'vpc-1',
  Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
});

describe('ELB subnets', () => {
  const igw: RouteTable[] = [
    { VpcId: 'vpc-1', Associations: [{ Main: true }], Routes: [{ GatewayId: 'local' }] },
    { VpcId: 'vpc-1', Associations: [{ SubnetId: 'subnet-pub' }], Routes: [{ GatewayId: 'igw-1' }] },
  ];

  it('keeps public subnets for internet-facing ELBs: an internet gateway route or the elb role tag', () => {
    const subnets = [
      subnet('subnet-pub', 'a'),
      subnet('subnet-priv', 'b'),
      subnet('subnet-role', 'c', { 'kubernetes.io/role/elb': '1' }),
    ];
    expect(chooseElbSubnets(subnets, igw, 'prod', false)).toEqual(['subnet-pub', 'subnet-role']);
    expect(chooseElbSubnets(subnets, igw, 'prod', true)).toEqual([
      'subnet-pub',
      'subnet-priv',
      'subnet-role',
    ]);
  });

  it('skips other clusters\u2019 subnets and breaks ties in an AZ by role tag, cluster tag, then id', () => {
    const subnets = [
      subnet('subnet-3', 'a', { 'kubernetes.io/role/elb': '1' }),
      subnet('subnet-1', 'a', { 'kubernetes.io/role/elb': '1', 'kubernetes.io/cluster/prod': 'shared' }),
      subnet('subnet-0', 'a', { 'kubernetes.io/role/elb': '1', 'kubernetes.io/cluster/dev': 'owned' }),
      subnet('subnet-9', 'b', { 'kubernetes.io/role/elb': '1' }),
      subnet('subnet-8', 'b', { 'kubernetes.io/role/elb': '1' }),
    ];
    expect(chooseElbSubnets(subnets, [], 'prod', false)).toEqual(['subnet-1', 'subnet-8']);
  });
});

describe('security group for an instance', () => {
  const instance = (groups: string[]): Instance => ({
    InstanceId: 'i-1',
    SecurityGroups: groups.map((g) => ({ GroupId: g, GroupName: `name-${g}` })),
  });

  it('picks the one cluster-tagged group, else the single untagged one', () => {
    expect(securityGroupForInstance(instance(['sg-a', 'sg-b']), new Set(['sg-b']))).toEqual({
      id: 'sg-b',
      name: 'name-sg-b',
    });
    expect(securityGroupForInstance(instance(['sg-a']), new Set())).toEqual({
      id: 'sg-a',
      name: 'name-sg-a',
    });
    expect(securityGroupForInstance(instance([]), new Set())).toBeUndefined();
  });

  it('fails with the upstream message when two groups carry the cluster tag', () => {
    expect(() => securityGroupForInstance(instance(['sg-a', 'sg-b']), new Set(['sg-a', 'sg-b']))).toThrow(
      'Multiple tagged security groups found for instance i-1; ensure only the k8s security group is tagged; the tagged groups were sg-a(name-sg-a) sg-b(name-sg-b) ',
    );
    expect(() => securityGroupForInstance(instance(['sg-a', 'sg-b']), new Set())).toThrow(
      'Multiple untagged security groups found for instance i-1; ensure the k8s security group is tagged',
    );
  });
});
