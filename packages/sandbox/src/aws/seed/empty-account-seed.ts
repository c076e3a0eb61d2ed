import type { AwsSeed } from './seed-schema.js';

export interface EmptyAccountSeedOptions {
  readonly accountId?: string;
  readonly region?: string;
  /** Adds `kubernetes.io/cluster/<name>: owned` to the VPC, subnets and security group. */
  readonly clusterName?: string;
  /** Adds `kubernetes.io/role/elb: 1` to the subnets, as load balancer subnet discovery expects. Default true. */
  readonly elbRoleTags?: boolean;
  readonly enforceIam?: boolean;
}

/** Fixed ids so scenarios and tests can refer to the default network without looking it up. */
export const EMPTY_ACCOUNT_IDS = {
  vpc: 'vpc-0a5b0c0d0e0f00001',
  subnets: ['subnet-0a5b0c0d0e0f00011', 'subnet-0a5b0c0d0e0f00012', 'subnet-0a5b0c0d0e0f00013'],
  securityGroup: 'sg-0a5b0c0d0e0f00021',
  routeTable: 'rtb-0a5b0c0d0e0f00031',
  internetGateway: 'igw-0a5b0c0d0e0f00041',
} as const;

/**
 * A realistic empty account: one VPC (10.0.0.0/16), three /20 subnets in three zones, a main route table
 * with an internet gateway route, one security group, and no instances.
 */
export function emptyAccountSeed(options: EmptyAccountSeedOptions = {}): AwsSeed {
  const region = options.region ?? 'us-east-1';
  const cluster: Record<string, string> = options.clusterName
    ? { [`kubernetes.io/cluster/${options.clusterName}`]: 'owned' }
    : {};
  const elbRole: Record<string, string> =
    options.elbRoleTags === false ? {} : { 'kubernetes.io/role/elb': '1' };
  const zones = ['a', 'b', 'c'].map((letter) => `${region}${letter}`);
  return {
    accountId: options.accountId ?? '123456789012',
    region,
    enforceIam: options.enforceIam ?? false,
    vpcs: [{ id: EMPTY_ACCOUNT_IDS.vpc, cidrBlock: '10.0.0.0/16', tags: { Name: 'sandbox', ...cluster } }],
    subnets: zones.map((zone, i) => ({
      id: EMPTY_ACCOUNT_IDS.subnets[i]!,
      vpcId: EMPTY_ACCOUNT_IDS.vpc,
      cidrBlock: `10.0.${i * 16}.0/20`,
      availabilityZone: zone,
      tags: { Name: `sandbox-${zone}`, ...elbRole, ...cluster },
    })),
    routeTables: [
      {
        id: EMPTY_ACCOUNT_IDS.routeTable,
        vpcId: EMPTY_ACCOUNT_IDS.vpc,
        main: true,
        subnetIds: [...EMPTY_ACCOUNT_IDS.subnets],
        routes: [{ destinationCidrBlock: '0.0.0.0/0', gatewayId: EMPTY_ACCOUNT_IDS.internetGateway }],
        tags: { Name: 'sandbox-main', ...cluster },
      },
    ],
    securityGroups: [
      {
        id: EMPTY_ACCOUNT_IDS.securityGroup,
        name: 'default',
        description: 'default VPC security group',
        vpcId: EMPTY_ACCOUNT_IDS.vpc,
        ingress: [{ protocol: '-1', sourceGroupIds: [EMPTY_ACCOUNT_IDS.securityGroup] }],
        tags: { ...cluster },
      },
    ],
  };
}
