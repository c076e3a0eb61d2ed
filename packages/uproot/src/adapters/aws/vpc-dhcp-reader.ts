/**
 * The DHCP options of the instances' VPCs: DescribeVpcs for their DhcpOptionsId, then DescribeDhcpOptions for
 * the `domain-name` (one filtered, paged call each, 200 ids per call). node-name-settings predicts hostnames
 * and instance metadata names from it. A failure names the call that failed, so a denied
 * ec2:DescribeDhcpOptions reads as such in the skip reason; nothing here throws.
 */
import {
  DescribeDhcpOptionsCommand,
  DescribeVpcsCommand,
  type DhcpOptions,
  type EC2Client,
  type Vpc,
} from '@aws-sdk/client-ec2';
import type { Readable } from '../../core/model/readable.js';
import type { VpcDhcpFacts } from '../../core/model/snapshot.js';
import { awsFailureReason } from './aws-errors.js';
import { chunk, FILTER_VALUES_PER_CALL, tagsOf } from './ec2-reader.js';

const PAGE = 1000;

/** EC2's DhcpOptionsId for a VPC without DHCP options. */
const NO_OPTIONS = 'default';

export async function readVpcDhcp(
  ec2: EC2Client,
  vpcIds: readonly string[],
): Promise<Readable<VpcDhcpFacts[]>> {
  if (vpcIds.length === 0) return { state: 'ok', value: [] };
  let vpcs: Vpc[];
  try {
    vpcs = await describeVpcs(ec2, vpcIds);
  } catch (error) {
    return { state: 'unavailable', reason: awsFailureReason(error, 'ec2:DescribeVpcs') };
  }
  const optionIds = [
    ...new Set(vpcs.map((v) => v.DhcpOptionsId ?? NO_OPTIONS).filter((id) => id !== NO_OPTIONS)),
  ];
  let sets: Map<string, DhcpOptions>;
  try {
    sets = optionIds.length > 0 ? await describeDhcpOptions(ec2, optionIds) : new Map();
  } catch (error) {
    return { state: 'unavailable', reason: awsFailureReason(error, 'ec2:DescribeDhcpOptions') };
  }
  const facts: VpcDhcpFacts[] = [];
  for (const vpc of vpcs) {
    const id = vpc.DhcpOptionsId ?? NO_OPTIONS;
    if (!vpc.VpcId) continue;
    const network = { ...(vpc.CidrBlock ? { cidrBlock: vpc.CidrBlock } : {}), tags: tagsOf(vpc.Tags) };
    if (id === NO_OPTIONS) {
      facts.push({ vpcId: vpc.VpcId, dhcpOptionsId: id, ...network });
      continue;
    }
    const set = sets.get(id);
    // A set EC2 did not return is unknown, not "no domain": leave the VPC out so nothing is predicted for it.
    if (!set) continue;
    const domain = set.DhcpConfigurations?.find((c) => c.Key === 'domain-name');
    const domainName = (domain?.Values ?? [])
      .map((v) => v.Value ?? '')
      .filter(Boolean)
      .join(' ');
    facts.push({ vpcId: vpc.VpcId, dhcpOptionsId: id, ...(domainName ? { domainName } : {}), ...network });
  }
  return { state: 'ok', value: facts };
}

async function describeVpcs(ec2: EC2Client, vpcIds: readonly string[]): Promise<Vpc[]> {
  const out: Vpc[] = [];
  for (const batch of chunk([...new Set(vpcIds)], FILTER_VALUES_PER_CALL)) {
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeVpcsCommand({
          Filters: [{ Name: 'vpc-id', Values: batch }],
          MaxResults: PAGE,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      out.push(...(page.Vpcs ?? []));
      token = page.NextToken || undefined;
    } while (token);
  }
  return out;
}

async function describeDhcpOptions(
  ec2: EC2Client,
  ids: readonly string[],
): Promise<Map<string, DhcpOptions>> {
  const out = new Map<string, DhcpOptions>();
  for (const batch of chunk(ids, FILTER_VALUES_PER_CALL)) {
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeDhcpOptionsCommand({
          Filters: [{ Name: 'dhcp-options-id', Values: batch }],
          MaxResults: PAGE,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      for (const set of page.DhcpOptions ?? []) if (set.DhcpOptionsId) out.set(set.DhcpOptionsId, set);
      token = page.NextToken || undefined;
    } while (token);
  }
  return out;
}
