/**
 * Batched EC2 reads: instances by `private-dns-name` or `instance-id` filter, 200 values per call and 1,000
 * results per page, never one call per node; subnets by VPC; security groups by id. Filters (not
 * InstanceIds) so that ids that do not exist are simply absent instead of failing the whole call.
 */
import {
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  type EC2Client,
  type Instance,
  type Tag,
} from '@aws-sdk/client-ec2';
import type { Ec2InstanceFacts, SecurityGroupFacts, SubnetFacts } from '../../core/model/snapshot.js';

export const FILTER_VALUES_PER_CALL = 200;
const PAGE = 1000;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `work` over items with at most `limit` in flight (a few parallel calls, not thousands). */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  });
  await Promise.all(runners);
  return out;
}

export function tagsOf(tags: readonly Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? '';
  return out;
}

function instanceFacts(i: Instance): Ec2InstanceFacts {
  return {
    instanceId: i.InstanceId ?? '',
    privateDnsName: i.PrivateDnsName ?? '',
    ...(i.PrivateIpAddress ? { privateIpAddress: i.PrivateIpAddress } : {}),
    state: i.State?.Name ?? 'unknown',
    availabilityZone: i.Placement?.AvailabilityZone ?? '',
    ...(i.VpcId ? { vpcId: i.VpcId } : {}),
    ...(i.SubnetId ? { subnetId: i.SubnetId } : {}),
    securityGroupIds: (i.SecurityGroups ?? []).map((g) => g.GroupId ?? '').filter(Boolean),
    tags: tagsOf(i.Tags),
    ...(i.IamInstanceProfile?.Arn ? { iamInstanceProfileArn: i.IamInstanceProfile.Arn } : {}),
    ...(i.InstanceType ? { instanceType: i.InstanceType } : {}),
    ...(i.MetadataOptions
      ? {
          metadataOptions: {
            httpTokens: i.MetadataOptions.HttpTokens ?? 'optional',
            httpPutResponseHopLimit: i.MetadataOptions.HttpPutResponseHopLimit ?? 1,
            httpEndpoint: i.MetadataOptions.HttpEndpoint ?? 'enabled',
          },
        }
      : {}),
  };
}

export async function describeInstances(
  ec2: EC2Client,
  filter: 'private-dns-name' | 'instance-id',
  values: readonly string[],
): Promise<Ec2InstanceFacts[]> {
  const pages = await mapLimited(chunk([...new Set(values)], FILTER_VALUES_PER_CALL), 4, async (batch) => {
    const found: Ec2InstanceFacts[] = [];
    let token: string | undefined;
    do {
      const out = await ec2.send(
        new DescribeInstancesCommand({
          Filters: [{ Name: filter, Values: batch }],
          MaxResults: PAGE,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      for (const r of out.Reservations ?? []) for (const i of r.Instances ?? []) found.push(instanceFacts(i));
      token = out.NextToken || undefined;
    } while (token);
    return found;
  });
  return pages.flat();
}

export async function describeSubnets(ec2: EC2Client, vpcIds: readonly string[]): Promise<SubnetFacts[]> {
  const out: SubnetFacts[] = [];
  for (const batch of chunk(vpcIds, FILTER_VALUES_PER_CALL)) {
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeSubnetsCommand({
          Filters: [{ Name: 'vpc-id', Values: batch }],
          MaxResults: PAGE,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      for (const s of page.Subnets ?? []) {
        out.push({
          subnetId: s.SubnetId ?? '',
          vpcId: s.VpcId ?? '',
          availabilityZone: s.AvailabilityZone ?? '',
          ...(s.CidrBlock ? { cidrBlock: s.CidrBlock } : {}),
          tags: tagsOf(s.Tags),
        });
      }
      token = page.NextToken || undefined;
    } while (token);
  }
  return out;
}

export async function describeSecurityGroups(
  ec2: EC2Client,
  groupIds: readonly string[],
): Promise<SecurityGroupFacts[]> {
  const out: SecurityGroupFacts[] = [];
  for (const batch of chunk(groupIds, FILTER_VALUES_PER_CALL)) {
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeSecurityGroupsCommand({
          Filters: [{ Name: 'group-id', Values: batch }],
          MaxResults: PAGE,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      for (const g of page.SecurityGroups ?? []) {
        out.push({
          groupId: g.GroupId ?? '',
          groupName: g.GroupName ?? '',
          ...(g.VpcId ? { vpcId: g.VpcId } : {}),
          tags: tagsOf(g.Tags),
        });
      }
      token = page.NextToken || undefined;
    } while (token);
  }
  return out;
}
