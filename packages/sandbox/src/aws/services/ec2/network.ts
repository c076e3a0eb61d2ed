import { compileFilters, readFilters } from '../../filters/filter-engine.js';
import { AwsApiError } from '../../protocol/aws-api-error.js';
import type { AwsState } from '../../state/aws-state.js';
import type { Subnet, Vpc } from '../../state/ec2-types.js';
import { parseCidr, zoneIdFor } from '../../state/ipv4.js';
import { stableHex } from '../../state/ids.js';
import type { ActionTable } from '../service-types.js';
import { describeCollection as describe } from './describe-collection.js';
import { ec2Arn, invalidFilter, tagSetXml } from './ec2-common.js';

function vpcXml(state: AwsState, v: Vpc): string {
  return (
    `<item><vpcId>${v.id}</vpcId><ownerId>${state.accountId}</ownerId><state>available</state><cidrBlock>${v.cidrBlock}</cidrBlock>` +
    `<cidrBlockAssociationSet><item><associationId>vpc-cidr-assoc-0${stableHex(v.id, 16)}</associationId><cidrBlock>${v.cidrBlock}</cidrBlock><cidrBlockState><state>associated</state></cidrBlockState></item></cidrBlockAssociationSet>` +
    `<dhcpOptionsId>${v.dhcpOptionsId}</dhcpOptionsId><instanceTenancy>default</instanceTenancy><isDefault>${v.isDefault}</isDefault>${tagSetXml(v.tags)}</item>`
  );
}

function availableAddresses(state: AwsState, s: Subnet): number {
  const range = parseCidr(s.cidrBlock);
  let used = 0;
  for (const i of state.ec2.instances.all()) if (i.subnetId === s.id && i.state !== 'terminated') used++;
  return Math.max(0, range.size - 5 - used);
}

function subnetXml(state: AwsState, s: Subnet): string {
  return (
    `<item><subnetId>${s.id}</subnetId><subnetArn>${ec2Arn(state.region, state.accountId, 'subnet', s.id)}</subnetArn>` +
    `<state>available</state><vpcId>${s.vpcId}</vpcId><cidrBlock>${s.cidrBlock}</cidrBlock>` +
    `<ipv6CidrBlockAssociationSet/><availableIpAddressCount>${availableAddresses(state, s)}</availableIpAddressCount>` +
    `<availabilityZone>${s.availabilityZone}</availabilityZone><availabilityZoneId>${s.availabilityZoneId}</availabilityZoneId>` +
    `<defaultForAz>false</defaultForAz><mapPublicIpOnLaunch>${s.mapPublicIpOnLaunch}</mapPublicIpOnLaunch>` +
    `<assignIpv6AddressOnCreation>false</assignIpv6AddressOnCreation><ownerId>${state.accountId}</ownerId>${tagSetXml(s.tags)}` +
    `<privateDnsNameOptionsOnLaunch><hostnameType>ip-name</hostnameType><enableResourceNameDnsARecord>false</enableResourceNameDnsARecord><enableResourceNameDnsAAAARecord>false</enableResourceNameDnsAAAARecord></privateDnsNameOptionsOnLaunch></item>`
  );
}

const STANDARD_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'ap-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
  'sa-east-1',
];

interface Zone {
  readonly id: string;
  readonly seq: number;
  readonly zoneId: string;
}

export const networkActions: ActionTable = {
  DescribeVpcs: {
    handle: (ctx) =>
      describe(ctx, {
        all: ctx.state.ec2.vpcs(),
        idParam: 'VpcId',
        notFound: (id) => new AwsApiError('InvalidVpcID.NotFound', `The vpc ID '${id}' does not exist`),
        setName: 'vpcSet',
        render: (v) => vpcXml(ctx.state, v),
        schema: {
          tags: (v) => v.tags,
          fields: {
            'vpc-id': (v) => v.id,
            cidr: (v) => v.cidrBlock,
            'cidr-block-association.cidr-block': (v) => v.cidrBlock,
            'is-default': (v) => String(v.isDefault),
            state: () => 'available',
            'owner-id': () => ctx.state.accountId,
            'dhcp-options-id': (v) => v.dhcpOptionsId,
          },
        },
      }),
  },
  DescribeSubnets: {
    handle: (ctx) =>
      describe(ctx, {
        all: ctx.state.ec2.subnets(),
        idParam: 'SubnetId',
        notFound: (id) => new AwsApiError('InvalidSubnetID.NotFound', `The subnet ID '${id}' does not exist`),
        setName: 'subnetSet',
        render: (s) => subnetXml(ctx.state, s),
        schema: {
          tags: (s) => s.tags,
          fields: {
            'subnet-id': (s) => s.id,
            'vpc-id': (s) => s.vpcId,
            'availability-zone': (s) => s.availabilityZone,
            'availability-zone-id': (s) => s.availabilityZoneId,
            'cidr-block': (s) => s.cidrBlock,
            cidr: (s) => s.cidrBlock,
            cidrBlock: (s) => s.cidrBlock,
            state: () => 'available',
            'default-for-az': () => 'false',
            'map-public-ip-on-launch': (s) => String(s.mapPublicIpOnLaunch),
            'owner-id': () => ctx.state.accountId,
            'subnet-arn': (s) => ec2Arn(ctx.state.region, ctx.state.accountId, 'subnet', s.id),
          },
        },
      }),
  },
  DescribeRegions: {
    handle: ({ state, input }) => {
      const names = input.list('RegionName', 'ec2');
      const all = [...new Set([state.region, ...STANDARD_REGIONS])];
      const unknown = names.find((n) => !all.includes(n));
      if (unknown !== undefined) throw new AwsApiError('InvalidParameterValue', `Invalid region: ${unknown}`);
      const matches = compileFilters(
        readFilters(input, 'ec2'),
        {
          fields: {
            'region-name': (r: string) => r,
            endpoint: (r: string) => `ec2.${r}.amazonaws.com`,
            'opt-in-status': () => 'opt-in-not-required',
          },
        },
        invalidFilter,
      );
      const regions = all.filter((r) => (names.length === 0 || names.includes(r)) && matches(r));
      return `<regionInfo>${regions
        .map(
          (r) =>
            `<item><regionName>${r}</regionName><regionEndpoint>ec2.${r}.amazonaws.com</regionEndpoint><optInStatus>opt-in-not-required</optInStatus></item>`,
        )
        .join('')}</regionInfo>`;
    },
  },
  DescribeAvailabilityZones: {
    handle: ({ state, input }) => {
      const zones: Zone[] = state.ec2.network
        .availabilityZones()
        .map((z, i) => ({ id: z, seq: i, zoneId: zoneIdFor(z, state.region) }));
      const names = input.list('ZoneName', 'ec2');
      const ids = input.list('ZoneId', 'ec2');
      const matches = compileFilters(
        readFilters(input, 'ec2'),
        {
          fields: {
            'zone-name': (z: Zone) => z.id,
            'zone-id': (z: Zone) => z.zoneId,
            'region-name': () => state.region,
            state: () => 'available',
            'zone-type': () => 'availability-zone',
            'group-name': () => state.region,
            'opt-in-status': () => 'opt-in-not-required',
          },
        },
        invalidFilter,
      );
      for (const n of names) {
        if (!zones.some((z) => z.id === n)) {
          throw new AwsApiError('InvalidParameterValue', `The zone '${n}' does not exist.`);
        }
      }
      const selected = zones.filter(
        (z) =>
          (names.length === 0 || names.includes(z.id)) &&
          (ids.length === 0 || ids.includes(z.zoneId)) &&
          matches(z),
      );
      return `<availabilityZoneInfo>${selected
        .map(
          (z) =>
            `<item><zoneName>${z.id}</zoneName><zoneState>available</zoneState><regionName>${state.region}</regionName>` +
            `<zoneId>${z.zoneId}</zoneId><groupName>${state.region}</groupName><networkBorderGroup>${state.region}</networkBorderGroup>` +
            `<zoneType>availability-zone</zoneType><optInStatus>opt-in-not-required</optInStatus><messageSet/></item>`,
        )
        .join('')}</availabilityZoneInfo>`;
    },
  },
};
