/**
 * Reads the AWS side of preflight in a handful of batched calls: who we are (STS), the nodes' instances (by
 * private DNS name, then by the instance ids in providerIDs and resource names not found yet), their subnets,
 * security groups and VPCs' DHCP options, the instance profiles' roles and policies, and — only when the cluster has
 * LoadBalancer Services — the load balancers. Every failure becomes a reason; nothing here throws.
 */
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { isInstanceId, nodeNameLookup, parseProviderId } from '../../core/checks/index.js';
import type {
  AwsFacts,
  Ec2InstanceFacts,
  IamFacts,
  LoadBalancerFacts,
  NodeFacts,
  SecurityGroupFacts,
  SubnetFacts,
  VpcDhcpFacts,
} from '../../core/model/snapshot.js';
import type { Readable } from '../../core/model/readable.js';
import type { AwsClients } from './aws-clients.js';
import { awsFailureReason } from './aws-errors.js';
import { describeInstances, describeSecurityGroups, describeSubnets } from './ec2-reader.js';
import { describeLoadBalancers } from './elb-reader.js';
import { readIam } from './iam-reader.js';
import { readVpcDhcp } from './vpc-dhcp-reader.js';

export interface AwsSnapshotOptions {
  /** Read load balancers (only worth it when the cluster has LoadBalancer Services). */
  readonly loadBalancers?: boolean;
  readonly onProgress?: (step: string) => void;
}

export async function readAwsSnapshot(
  aws: AwsClients,
  nodes: readonly NodeFacts[],
  options: AwsSnapshotOptions = {},
): Promise<Readable<AwsFacts>> {
  const progress = options.onProgress ?? (() => undefined);
  progress('AWS identity');
  let accountId: string;
  try {
    accountId = (await aws.sts.send(new GetCallerIdentityCommand({}))).Account ?? '';
  } catch (error) {
    return { state: 'unavailable', reason: awsFailureReason(error, 'sts:GetCallerIdentity') };
  }

  progress('EC2 instances');
  const instances = await attempt('ec2:DescribeInstances', () => readInstances(aws, nodes));
  const found = instances.state === 'ok' ? instances.value : [];
  const vpcIds = [...new Set(found.map((i) => i.vpcId).filter((v): v is string => v !== undefined))];
  const groupIds = [...new Set(found.flatMap((i) => i.securityGroupIds))];
  const profileArns = [
    ...new Set(found.map((i) => i.iamInstanceProfileArn).filter((a): a is string => a !== undefined)),
  ];

  progress('subnets, security groups, DHCP options, IAM, load balancers');
  const [subnets, securityGroups, vpcDhcp, iam, loadBalancers] = await Promise.all([
    instances.state === 'ok'
      ? attempt<SubnetFacts[]>('ec2:DescribeSubnets', () => describeSubnets(aws.ec2, vpcIds))
      : unavailableBecause<SubnetFacts[]>(instances),
    instances.state === 'ok'
      ? attempt<SecurityGroupFacts[]>('ec2:DescribeSecurityGroups', () =>
          describeSecurityGroups(aws.ec2, groupIds),
        )
      : unavailableBecause<SecurityGroupFacts[]>(instances),
    instances.state === 'ok' ? readVpcDhcp(aws.ec2, vpcIds) : unavailableBecause<VpcDhcpFacts[]>(instances),
    instances.state === 'ok'
      ? attempt<IamFacts>('iam', () => readIam(aws.iam, profileArns))
      : unavailableBecause<IamFacts>(instances),
    options.loadBalancers
      ? attempt<LoadBalancerFacts[]>('elasticloadbalancing:DescribeLoadBalancers', () =>
          describeLoadBalancers(aws.elb, aws.elbv2),
        )
      : Promise.resolve(undefined),
  ]);
  return {
    state: 'ok',
    value: {
      region: aws.region,
      accountId,
      instances,
      subnets,
      securityGroups,
      vpcDhcp,
      iam,
      ...(loadBalancers ? { loadBalancers } : {}),
    },
  };
}

/** Instances by name first; then by id for providerIDs and resource names the first pass did not find. */
async function readInstances(aws: AwsClients, nodes: readonly NodeFacts[]): Promise<Ec2InstanceFacts[]> {
  const dnsNames: string[] = [];
  const ids = new Set<string>();
  for (const n of nodes) {
    const lookup = nodeNameLookup(n.name);
    if (lookup.by === 'private-dns-name') {
      // A short name is still asked about: the CCM asks the same, and EC2's answer (none) is the evidence.
      dnsNames.push(lookup.name);
    } else ids.add(lookup.instanceId);
    const pid = n.providerID ? parseProviderId(n.providerID) : undefined;
    if (pid?.kind === 'instance') ids.add(pid.instanceId);
  }
  const byName = dnsNames.length > 0 ? await describeInstances(aws.ec2, 'private-dns-name', dnsNames) : [];
  const seen = new Set(byName.map((i) => i.instanceId));
  const missing = [...ids].filter((id) => !seen.has(id) && isInstanceId(id));
  const byId = missing.length > 0 ? await describeInstances(aws.ec2, 'instance-id', missing) : [];
  const all = new Map<string, Ec2InstanceFacts>();
  for (const i of [...byName, ...byId]) all.set(i.instanceId, i);
  return [...all.values()];
}

async function attempt<T>(call: string, read: () => Promise<T>): Promise<Readable<T>> {
  try {
    return { state: 'ok', value: await read() };
  } catch (error) {
    return { state: 'unavailable', reason: awsFailureReason(error, call) };
  }
}

async function unavailableBecause<T>(instances: {
  state: 'unavailable';
  reason: string;
}): Promise<Readable<T>> {
  return { state: 'unavailable', reason: instances.reason };
}
