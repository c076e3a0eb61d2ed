import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DeleteSecurityGroupCommand,
  DescribeAvailabilityZonesCommand,
  DescribeRegionsCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  RevokeSecurityGroupIngressCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, EMPTY_ACCOUNT_IDS } from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor, failureOf } from './helpers.js';

describe('EC2 network reads', () => {
  it('describes the default account: one VPC, three subnets in three zones, one route table', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed({ clusterName: 'demo' }) });
    const vpcs = await clients.ec2.send(new DescribeVpcsCommand({}));
    expect(vpcs.Vpcs).toHaveLength(1);
    expect(vpcs.Vpcs![0]).toMatchObject({
      VpcId: EMPTY_ACCOUNT_IDS.vpc,
      CidrBlock: '10.0.0.0/16',
      State: 'available',
      IsDefault: false,
    });
    const subnets = await clients.ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'tag:kubernetes.io/role/elb', Values: ['1'] }] }),
    );
    expect(
      subnets.Subnets?.map((s) => [s.SubnetId, s.AvailabilityZone, s.AvailabilityZoneId, s.CidrBlock]),
    ).toEqual([
      [EMPTY_ACCOUNT_IDS.subnets[0], 'us-east-1a', 'use1-az1', '10.0.0.0/20'],
      [EMPTY_ACCOUNT_IDS.subnets[1], 'us-east-1b', 'use1-az2', '10.0.16.0/20'],
      [EMPTY_ACCOUNT_IDS.subnets[2], 'us-east-1c', 'use1-az3', '10.0.32.0/20'],
    ]);
    expect(subnets.Subnets![0]!.AvailableIpAddressCount).toBe(4091);
    const tables = await clients.ec2.send(
      new DescribeRouteTablesCommand({
        Filters: [{ Name: 'association.subnet-id', Values: [EMPTY_ACCOUNT_IDS.subnets[2]] }],
      }),
    );
    expect(tables.RouteTables?.[0]?.Routes?.map((r) => [r.DestinationCidrBlock, r.GatewayId])).toEqual([
      ['10.0.0.0/16', 'local'],
      ['0.0.0.0/0', EMPTY_ACCOUNT_IDS.internetGateway],
    ]);
    expect(tables.RouteTables?.[0]?.Associations?.some((a) => a.Main)).toBe(true);
  });

  it('fails on unknown VPC and subnet ids with EC2 codes', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    expect(
      (await failureOf(clients.ec2.send(new DescribeVpcsCommand({ VpcIds: ['vpc-0123456789abcdef0'] }))))
        .name,
    ).toBe('InvalidVpcID.NotFound');
    expect(
      (await failureOf(clients.ec2.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-01234567'] }))))
        .name,
    ).toBe('InvalidSubnetID.NotFound');
  });

  it('describes regions and the region’s zones', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed({ region: 'eu-west-2' }) });
    const regions = await clients.ec2.send(new DescribeRegionsCommand({ RegionNames: ['eu-west-2'] }));
    expect(regions.Regions).toEqual([
      {
        RegionName: 'eu-west-2',
        Endpoint: 'ec2.eu-west-2.amazonaws.com',
        OptInStatus: 'opt-in-not-required',
      },
    ]);
    const zones = await clients.ec2.send(new DescribeAvailabilityZonesCommand({}));
    expect(zones.AvailabilityZones?.map((z) => [z.ZoneName, z.ZoneId, z.State])).toEqual([
      ['eu-west-2a', 'euw2-az1', 'available'],
      ['eu-west-2b', 'euw2-az2', 'available'],
      ['eu-west-2c', 'euw2-az3', 'available'],
    ]);
  });
});

describe('EC2 security groups', () => {
  it('creates a group, authorizes and revokes ingress, and deletes it, as the CCM does for a LoadBalancer', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const created = await clients.ec2.send(
      new CreateSecurityGroupCommand({
        GroupName: 'k8s-elb-a1b2',
        Description: 'Security group for Kubernetes ELB a1b2',
        VpcId: EMPTY_ACCOUNT_IDS.vpc,
        TagSpecifications: [
          { ResourceType: 'security-group', Tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }] },
        ],
      }),
    );
    const groupId = created.GroupId!;
    expect(groupId).toMatch(/^sg-0/);
    const permission = { IpProtocol: 'tcp', FromPort: 80, ToPort: 80, IpRanges: [{ CidrIp: '0.0.0.0/0' }] };
    const authorized = await clients.ec2.send(
      new AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [permission] }),
    );
    expect(authorized.Return).toBe(true);
    expect(authorized.SecurityGroupRules?.[0]).toMatchObject({
      GroupId: groupId,
      IpProtocol: 'tcp',
      FromPort: 80,
      CidrIpv4: '0.0.0.0/0',
      IsEgress: false,
    });
    const duplicate = await failureOf(
      clients.ec2.send(
        new AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [permission] }),
      ),
    );
    expect(duplicate.name).toBe('InvalidPermission.Duplicate');
    const [group] = (await clients.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] })))
      .SecurityGroups!;
    expect(group).toMatchObject({
      GroupName: 'k8s-elb-a1b2',
      Tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }],
      IpPermissions: [{ IpProtocol: 'tcp', FromPort: 80, ToPort: 80, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
      IpPermissionsEgress: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
    });
    const revoked = await clients.ec2.send(
      new RevokeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [permission] }),
    );
    expect(revoked.Return).toBe(true);
    await clients.ec2.send(new DeleteSecurityGroupCommand({ GroupId: groupId }));
    expect(
      (await failureOf(clients.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] })))).name,
    ).toBe('InvalidGroup.NotFound');
  });

  it('finds groups by cluster tag and refuses duplicates and deleting groups in use', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed({ clusterName: 'demo' }) });
    emulator.state.runInstance({});
    const tagged = await clients.ec2.send(
      new DescribeSecurityGroupsCommand({
        Filters: [{ Name: 'tag-key', Values: ['kubernetes.io/cluster/demo'] }],
      }),
    );
    expect(tagged.SecurityGroups?.map((g) => g.GroupId)).toEqual([EMPTY_ACCOUNT_IDS.securityGroup]);
    const dup = await failureOf(
      clients.ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: 'default',
          Description: 'x',
          VpcId: EMPTY_ACCOUNT_IDS.vpc,
        }),
      ),
    );
    expect(dup.name).toBe('InvalidGroup.Duplicate');
    const inUse = await failureOf(
      clients.ec2.send(new DeleteSecurityGroupCommand({ GroupId: EMPTY_ACCOUNT_IDS.securityGroup })),
    );
    expect(inUse.name).toBe('DependencyViolation');
  });
});
