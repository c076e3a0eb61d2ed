import {
  CreateRouteCommand,
  CreateTagsCommand,
  DeleteRouteCommand,
  DescribeDhcpOptionsCommand,
  DescribeRouteTablesCommand,
  DescribeTagsCommand,
  DescribeVpcsCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import {
  emptyAccountSeed,
  EMPTY_ACCOUNT_IDS,
  type AwsSeed,
} from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor, failureOf } from './helpers.js';

const CUSTOM = 'dopt-0c0ffee0c0ffee001';

/** The empty account whose VPC uses a DHCP options set with a corporate domain, plus a second, bare VPC. */
function customDomainSeed(): AwsSeed {
  const base = emptyAccountSeed({ clusterName: 'demo' });
  return {
    ...base,
    dhcpOptions: [
      { id: CUSTOM, domainName: 'corp.example.com', tags: { Name: 'corp' } },
      { domainNameServers: ['10.0.0.2'] },
    ],
    vpcs: [
      { ...base.vpcs![0]!, dhcpOptionsId: CUSTOM },
      { id: 'vpc-0000000000000beef', cidrBlock: '10.9.0.0/16', dhcpOptionsId: 'default' },
    ],
  };
}

describe('EC2 DHCP options', () => {
  it('gives every VPC the region default (ec2.internal in us-east-1) and answers in EC2’s shape', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const [vpc] = (await clients.ec2.send(new DescribeVpcsCommand({}))).Vpcs!;
    expect(vpc!.DhcpOptionsId).toMatch(/^dopt-0[0-9a-f]{16}$/);
    const out = await clients.ec2.send(
      new DescribeDhcpOptionsCommand({ DhcpOptionsIds: [vpc!.DhcpOptionsId!] }),
    );
    expect(out.DhcpOptions).toEqual([
      {
        DhcpOptionsId: vpc!.DhcpOptionsId,
        OwnerId: '123456789012',
        DhcpConfigurations: [
          { Key: 'domain-name', Values: [{ Value: 'ec2.internal' }] },
          { Key: 'domain-name-servers', Values: [{ Value: 'AmazonProvidedDNS' }] },
        ],
        Tags: [],
      },
    ]);
    const west = await emulatorFor({ seed: emptyAccountSeed({ region: 'eu-west-2' }) });
    const [set] = (await west.clients.ec2.send(new DescribeDhcpOptionsCommand({}))).DhcpOptions!;
    expect(set!.DhcpConfigurations![0]!.Values).toEqual([{ Value: 'eu-west-2.compute.internal' }]);
  });

  it('serves seeded sets, the VPC link, and the dhcp-options-id, key, value and tag filters', async () => {
    const { clients } = await emulatorFor({ seed: customDomainSeed() });
    const vpcs = (await clients.ec2.send(new DescribeVpcsCommand({}))).Vpcs!;
    expect(vpcs.map((v) => [v.VpcId, v.DhcpOptionsId])).toEqual([
      [EMPTY_ACCOUNT_IDS.vpc, CUSTOM],
      ['vpc-0000000000000beef', 'default'],
    ]);
    const byVpcFilter = await clients.ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'dhcp-options-id', Values: [CUSTOM] }] }),
    );
    expect(byVpcFilter.Vpcs?.map((v) => v.VpcId)).toEqual([EMPTY_ACCOUNT_IDS.vpc]);
    const ids = async (filters: { Name: string; Values: string[] }[]) =>
      (await clients.ec2.send(new DescribeDhcpOptionsCommand({ Filters: filters }))).DhcpOptions?.map(
        (d) => d.DhcpOptionsId,
      );
    expect(await ids([{ Name: 'value', Values: ['corp.example.com'] }])).toEqual([CUSTOM]);
    expect(await ids([{ Name: 'key', Values: ['domain-name'] }])).toEqual([CUSTOM]);
    expect(await ids([{ Name: 'tag:Name', Values: ['corp'] }])).toEqual([CUSTOM]);
    expect(await ids([{ Name: 'dhcp-options-id', Values: [CUSTOM] }])).toEqual([CUSTOM]);
    expect(await ids([{ Name: 'value', Values: ['10.0.0.2'] }])).toHaveLength(1);
    const [custom] = (await clients.ec2.send(new DescribeDhcpOptionsCommand({ DhcpOptionsIds: [CUSTOM] })))
      .DhcpOptions!;
    expect(custom!.DhcpConfigurations).toEqual([
      { Key: 'domain-name', Values: [{ Value: 'corp.example.com' }] },
      { Key: 'domain-name-servers', Values: [{ Value: 'AmazonProvidedDNS' }] },
    ]);
  });

  it('fails unknown ids and filters with EC2 codes, and pages', async () => {
    const { clients } = await emulatorFor({
      seed: {
        dhcpOptions: Array.from({ length: 7 }, (_, i) => ({ domainName: `d${i}.example.com` })),
      },
    });
    expect(
      (
        await failureOf(
          clients.ec2.send(new DescribeDhcpOptionsCommand({ DhcpOptionsIds: ['dopt-0123456789abcdef0'] })),
        )
      ).name,
    ).toBe('InvalidDhcpOptionID.NotFound');
    expect(
      (
        await failureOf(
          clients.ec2.send(new DescribeDhcpOptionsCommand({ Filters: [{ Name: 'domain', Values: ['x'] }] })),
        )
      ).name,
    ).toBe('InvalidParameterValue');
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await clients.ec2.send(
        new DescribeDhcpOptionsCommand({ MaxResults: 5, ...(token ? { NextToken: token } : {}) }),
      );
      seen.push(...(page.DhcpOptions ?? []).map((d) => d.DhcpConfigurations![0]!.Values![0]!.Value!));
      token = page.NextToken;
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `d${i}.example.com`));
  });

  it('takes tags through CreateTags and lists them as resource type dhcp-options', async () => {
    const { clients } = await emulatorFor({ seed: customDomainSeed() });
    await clients.ec2.send(
      new CreateTagsCommand({ Resources: [CUSTOM], Tags: [{ Key: 'team', Value: 'net' }] }),
    );
    const tags = await clients.ec2.send(
      new DescribeTagsCommand({ Filters: [{ Name: 'resource-type', Values: ['dhcp-options'] }] }),
    );
    expect(tags.Tags?.map((t) => [t.ResourceId, t.Key, t.Value])).toEqual([
      [CUSTOM, 'Name', 'corp'],
      [CUSTOM, 'team', 'net'],
    ]);
  });
});

describe('EC2 routes', () => {
  it('creates a route to an instance, refuses duplicates, shows a blackhole once the instance is gone, and deletes it', async () => {
    const { emulator, clients } = await emulatorFor({ seed: emptyAccountSeed({ clusterName: 'demo' }) });
    const instance = emulator.state.runInstance({ subnetId: EMPTY_ACCOUNT_IDS.subnets[1] });
    const table = EMPTY_ACCOUNT_IDS.routeTable;
    const route = { RouteTableId: table, DestinationCidrBlock: '10.42.1.0/24', InstanceId: instance.id };
    expect((await clients.ec2.send(new CreateRouteCommand(route))).Return).toBe(true);
    const routesOf = async () =>
      (
        await clients.ec2.send(
          new DescribeRouteTablesCommand({
            Filters: [{ Name: 'route.instance-id', Values: [instance.id] }],
          }),
        )
      ).RouteTables?.[0]?.Routes;
    expect((await routesOf())?.find((r) => r.InstanceId)).toEqual({
      DestinationCidrBlock: '10.42.1.0/24',
      InstanceId: instance.id,
      InstanceOwnerId: '123456789012',
      NetworkInterfaceId: instance.networkInterfaceId,
      State: 'active',
      Origin: 'CreateRoute',
    });
    const duplicate = await failureOf(clients.ec2.send(new CreateRouteCommand(route)));
    expect([duplicate.name, duplicate.message, duplicate.$metadata.httpStatusCode]).toEqual([
      'RouteAlreadyExists',
      'The route identified by 10.42.1.0/24 already exists.',
      400,
    ]);
    await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instance.id] }));
    expect((await routesOf())?.find((r) => r.InstanceId)?.State).toBe('blackhole');
    const deleted = await clients.ec2.send(
      new DeleteRouteCommand({ RouteTableId: table, DestinationCidrBlock: '10.42.1.0/24' }),
    );
    expect(deleted.$metadata.httpStatusCode).toBe(200);
    expect(await routesOf()).toBeUndefined();
  });

  it('answers unknown tables, routes and instances, and the local route, with EC2 codes', async () => {
    const { clients } = await emulatorFor({ seed: emptyAccountSeed() });
    const table = EMPTY_ACCOUNT_IDS.routeTable;
    const nameOf = async (p: Promise<unknown>) => (await failureOf(p)).name;
    expect(
      await nameOf(
        clients.ec2.send(
          new CreateRouteCommand({
            RouteTableId: 'rtb-0123456789abcdef0',
            DestinationCidrBlock: '10.42.0.0/24',
            GatewayId: 'igw-0123456789abcdef0',
          }),
        ),
      ),
    ).toBe('InvalidRouteTableID.NotFound');
    expect(
      await nameOf(
        clients.ec2.send(
          new CreateRouteCommand({
            RouteTableId: table,
            DestinationCidrBlock: '10.42.0.0/24',
            InstanceId: 'i-0123456789abcdef0',
          }),
        ),
      ),
    ).toBe('InvalidInstanceID.NotFound');
    expect(
      await nameOf(
        clients.ec2.send(
          new DeleteRouteCommand({ RouteTableId: table, DestinationCidrBlock: '10.42.9.0/24' }),
        ),
      ),
    ).toBe('InvalidRoute.NotFound');
    expect(
      await nameOf(
        clients.ec2.send(
          new DeleteRouteCommand({ RouteTableId: table, DestinationCidrBlock: '10.0.0.0/16' }),
        ),
      ),
    ).toBe('InvalidParameterValue');
    expect(
      await nameOf(
        clients.ec2.send(
          new DeleteRouteCommand({
            RouteTableId: 'rtb-0123456789abcdef0',
            DestinationCidrBlock: '10.0.0.0/16',
          }),
        ),
      ),
    ).toBe('InvalidRouteTableID.NotFound');
  });
});
