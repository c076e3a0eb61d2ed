import { AwsApiError } from '../../protocol/aws-api-error.js';
import { xmlElement, type XmlValue } from '../../protocol/xml.js';
import type { AwsState } from '../../state/aws-state.js';
import type { Route, RouteTable } from '../../state/ec2-types.js';
import { stableHex } from '../../state/ids.js';
import { routeTableNotFound } from '../../state/network-store.js';
import type { ActionContext, ActionTable } from '../service-types.js';
import { describeCollection } from './describe-collection.js';
import { ec2Arn, tagSetXml } from './ec2-common.js';

/**
 * Route tables: DescribeRouteTables, and CreateRoute/DeleteRoute as the route controller calls them (a pod
 * CIDR routed to a node's instance). A route to an instance that is gone shows `blackhole`, as on EC2.
 */

function associationId(t: RouteTable, subnetId: string): string {
  return `rtbassoc-0${stableHex(`${t.id}/${subnetId}`, 16)}`;
}

/** `active`, or `blackhole` once an instance target no longer exists. */
function routeState(state: AwsState, r: Route): Route['state'] {
  if (r.instanceId === undefined) return r.state;
  const instance = state.ec2.instance(r.instanceId);
  return instance && instance.state !== 'terminated' ? r.state : 'blackhole';
}

function routeTableXml(state: AwsState, t: RouteTable): string {
  const routes = t.routes.map((r) => {
    const instance = r.instanceId === undefined ? undefined : state.ec2.instance(r.instanceId);
    return xmlElement(
      'item',
      {
        destinationCidrBlock: r.destinationCidrBlock,
        gatewayId: r.gatewayId,
        instanceId: r.instanceId,
        instanceOwnerId: r.instanceId === undefined ? undefined : state.accountId,
        natGatewayId: r.natGatewayId,
        networkInterfaceId: instance?.networkInterfaceId,
        state: routeState(state, r),
        origin: r.origin,
      },
      'item',
    );
  });
  const associations: XmlValue[] = t.subnetIds.map((subnetId) => ({
    routeTableAssociationId: associationId(t, subnetId),
    routeTableId: t.id,
    subnetId,
    main: false,
    associationState: { state: 'associated' },
  }));
  if (t.main) {
    associations.unshift({
      routeTableAssociationId: associationId(t, 'main'),
      routeTableId: t.id,
      main: true,
      associationState: { state: 'associated' },
    });
  }
  return (
    `<item><routeTableId>${t.id}</routeTableId><vpcId>${t.vpcId}</vpcId><ownerId>${state.accountId}</ownerId>` +
    `<routeSet>${routes.join('')}</routeSet>${xmlElement('associationSet', associations, 'item')}<propagatingVgwSet/>${tagSetXml(t.tags)}</item>`
  );
}

function routeTableArn({ state, input }: ActionContext): string[] {
  const id = input.string('RouteTableId') ?? '*';
  return [ec2Arn(state.region, state.accountId, 'route-table', id)];
}

/** CreateRoute takes IPv4 destinations here; IPv6 and prefix-list routes are not modelled. */
function destination(ctx: ActionContext): string {
  const cidr = ctx.input.string('DestinationCidrBlock');
  if (cidr !== undefined && cidr !== '') return cidr;
  if (ctx.input.has('DestinationIpv6CidrBlock') || ctx.input.has('DestinationPrefixListId')) {
    throw new AwsApiError('InvalidParameterValue', 'The sandbox models IPv4 destination CIDR blocks only');
  }
  throw new AwsApiError(
    'MissingParameter',
    'The request must contain exactly one of destinationCidrBlock, destinationIpv6CidrBlock or destinationPrefixListId',
  );
}

export const routeTableActions: ActionTable = {
  DescribeRouteTables: {
    handle: (ctx) =>
      describeCollection(ctx, {
        all: ctx.state.ec2.routeTables(),
        idParam: 'RouteTableId',
        notFound: routeTableNotFound,
        setName: 'routeTableSet',
        render: (t) => routeTableXml(ctx.state, t),
        schema: {
          tags: (t) => t.tags,
          fields: {
            'route-table-id': (t) => t.id,
            'vpc-id': (t) => t.vpcId,
            'association.subnet-id': (t) => t.subnetIds,
            'association.main': (t) => String(t.main),
            'association.route-table-id': (t) => t.id,
            'association.route-table-association-id': (t) => t.subnetIds.map((s) => associationId(t, s)),
            'route.destination-cidr-block': (t) => t.routes.map((r) => r.destinationCidrBlock),
            'route.gateway-id': (t) => t.routes.flatMap((r) => (r.gatewayId ? [r.gatewayId] : [])),
            'route.instance-id': (t) => t.routes.flatMap((r) => (r.instanceId ? [r.instanceId] : [])),
            'route.nat-gateway-id': (t) => t.routes.flatMap((r) => (r.natGatewayId ? [r.natGatewayId] : [])),
            'route.origin': (t) => t.routes.map((r) => r.origin),
            'route.state': (t) => t.routes.map((r) => routeState(ctx.state, r)),
            'owner-id': () => ctx.state.accountId,
          },
        },
      }),
  },
  CreateRoute: {
    resources: routeTableArn,
    handle: (ctx) => {
      const { input, state } = ctx;
      const tableId = input.requiredString('RouteTableId');
      const destinationCidrBlock = destination(ctx);
      state.ec2.createRoute(tableId, {
        destinationCidrBlock,
        gatewayId: input.string('GatewayId'),
        instanceId: input.string('InstanceId'),
        natGatewayId: input.string('NatGatewayId'),
      });
      return '<return>true</return>';
    },
  },
  DeleteRoute: {
    resources: routeTableArn,
    handle: (ctx) => {
      const tableId = ctx.input.requiredString('RouteTableId');
      ctx.state.ec2.deleteRoute(tableId, destination(ctx));
      return '<return>true</return>';
    },
  },
};
