import {
  CreateRouteCommand,
  DeleteRouteCommand,
  DescribeRouteTablesCommand,
  type RouteTable,
} from '@aws-sdk/client-ec2';
import type { V1Node } from '@kubernetes/client-node';
import { CloudError } from './aws-cloud.js';
import { hasClusterTag } from './cluster-tags.js';
import { guard, runPeriodically, type ControllerContext } from './controller-context.js';
import { errorText } from './error-text.js';
import { nodeName } from './node-helpers.js';
import { cidrContains, parseCidr } from './pod-cidr.js';

/** --route-reconciliation-period's default. */
export const ROUTE_RECONCILE_PERIOD_MS = 10_000;

/** A route as ListRoutes reports it. */
export interface CloudRoute {
  readonly destinationCidr: string;
  /** The node (instance private DNS name) it points at; empty for blackholes. */
  readonly targetNode: string;
  readonly blackhole: boolean;
}

/**
 * route (only with --allocate-node-cidrs and --configure-cloud-routes): every node's podCIDRs get a route in
 * the cluster's tagged route table to the node's instance (CreateRoute); blackholes and routes within
 * --cluster-cidr that no node claims are deleted (DeleteRoute); each node's NetworkUnavailable condition tells
 * whether its routes exist. Every call that changed the table is recorded in the ledger as `aws:`.
 */
export async function runRouteController(ctx: ControllerContext, signal: AbortSignal): Promise<void> {
  const informer = await ctx.informers.nodes();
  await runPeriodically({
    clock: ctx.clock,
    signal,
    periodMs: ROUTE_RECONCILE_PERIOD_MS,
    pass: () => reconcileRoutes(ctx, signal, informer.list()),
    onError: (error) => ctx.log(`Couldn't reconcile node routes: ${errorText(error)}`),
  });
}

async function findRouteTable(ctx: ControllerContext): Promise<RouteTable> {
  const { clusterId } = await ctx.cloud.requireClusterId();
  const api = ctx.cloud.api;
  const out = await api.send(() => api.ec2.send(new DescribeRouteTablesCommand({})));
  const tables = (out.RouteTables ?? []).filter((t) => hasClusterTag(t.Tags, clusterId));
  const table = tables[0];
  if (!table)
    throw new CloudError('Other', `unable to find route table for AWS cluster: ${ctx.settings.clusterName}`);
  return table;
}

export async function reconcileRoutes(
  ctx: ControllerContext,
  signal: AbortSignal,
  nodes: readonly V1Node[],
): Promise<void> {
  const table = await findRouteTable(ctx);
  const tableId = table.RouteTableId ?? '';
  const instanceIds = (table.Routes ?? []).map((r) => r.InstanceId).filter((id): id is string => Boolean(id));
  const instances = await ctx.cloud.instancesByIds(instanceIds);
  const routes: CloudRoute[] = [];
  for (const r of table.Routes ?? []) {
    const destinationCidr = r.DestinationCidrBlock ?? '';
    if (!destinationCidr) continue;
    if (r.State === 'blackhole') routes.push({ destinationCidr, targetNode: '', blackhole: true });
    else if (r.InstanceId && instances.has(r.InstanceId)) {
      routes.push({
        destinationCidr,
        targetNode: instances.get(r.InstanceId)?.PrivateDnsName ?? '',
        blackhole: false,
      });
    }
  }

  const created = new Map<string, boolean>();
  for (const node of nodes) {
    const name = nodeName(node);
    const cidrs = node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
    if (cidrs.length === 0) continue;
    let all = true;
    for (const cidr of cidrs) {
      if (routes.some((r) => r.targetNode === name && r.destinationCidr === cidr)) continue;
      const ok = await createRoute(ctx, signal, tableId, node, cidr);
      all &&= ok;
    }
    created.set(name, all);
  }

  const clusterCidr = parseCidr(ctx.settings.clusterCidr ?? '');
  const claimed = (route: CloudRoute): boolean =>
    nodes.some(
      (n) =>
        nodeName(n) === route.targetNode &&
        (n.spec?.podCIDRs ?? [n.spec?.podCIDR]).includes(route.destinationCidr),
    );
  for (const route of routes) {
    const inside = clusterCidr && parseCidr(route.destinationCidr);
    if (!clusterCidr || !inside || !cidrContains(clusterCidr, inside)) continue;
    if (!route.blackhole && claimed(route)) continue;
    await deleteRoute(ctx, signal, tableId, route);
  }

  for (const node of nodes) {
    const ok = created.get(nodeName(node));
    if (ok === undefined) continue;
    await updateNetworkingCondition(ctx, signal, node, ok);
  }
}

async function createRoute(
  ctx: ControllerContext,
  signal: AbortSignal,
  tableId: string,
  node: V1Node,
  cidr: string,
): Promise<boolean> {
  const name = nodeName(node);
  try {
    const instance = await ctx.cloud.instanceForNodeName(name);
    const instanceId = instance.InstanceId ?? '';
    guard(signal);
    const api = ctx.cloud.api;
    await api.send(() =>
      api.ec2.send(
        new CreateRouteCommand({ RouteTableId: tableId, DestinationCidrBlock: cidr, InstanceId: instanceId }),
      ),
    );
    ctx.record(`aws:CreateRoute ${tableId} ${cidr} -> ${instanceId}`);
    return true;
  } catch (error) {
    guard(signal);
    await ctx.events.event(
      { kind: 'Node', name, uid: node.metadata?.uid },
      'Warning',
      'FailedToCreateRoute',
      `Could not create route ${node.metadata?.uid ?? ''} ${cidr} for node ${name} after 0s: ${errorText(error)}`,
    );
    return false;
  }
}

async function deleteRoute(
  ctx: ControllerContext,
  signal: AbortSignal,
  tableId: string,
  route: CloudRoute,
): Promise<void> {
  guard(signal);
  const api = ctx.cloud.api;
  try {
    await api.send(() =>
      api.ec2.send(
        new DeleteRouteCommand({ RouteTableId: tableId, DestinationCidrBlock: route.destinationCidr }),
      ),
    );
    ctx.record(`aws:DeleteRoute ${tableId} ${route.destinationCidr}`);
  } catch (error) {
    // The route controller logs and retries on its next pass; the table is re-read every time.
    ctx.log(`Could not delete route ${route.destinationCidr}: ${errorText(error)}`);
  }
}

/** NetworkUnavailable: False/RouteCreated once every podCIDR has a route, True/NoRouteCreated otherwise. */
async function updateNetworkingCondition(
  ctx: ControllerContext,
  signal: AbortSignal,
  node: V1Node,
  routesCreated: boolean,
): Promise<void> {
  const current = (node.status?.conditions ?? []).find((c) => c.type === 'NetworkUnavailable');
  const status = routesCreated ? 'False' : 'True';
  if (current?.status === status) return;
  const now = new Date(Math.floor(ctx.clock.now() / 1000) * 1000).toISOString();
  const condition = {
    type: 'NetworkUnavailable',
    status,
    reason: routesCreated ? 'RouteCreated' : 'NoRouteCreated',
    message: routesCreated ? 'RouteController created a route' : 'RouteController failed to create a route',
    lastTransitionTime: now,
    lastHeartbeatTime: now,
  };
  guard(signal);
  await ctx.kube.patchNodeStatus(nodeName(node), { status: { conditions: [condition] } }, 'strategic');
  ctx.record(`kube:patch node/${nodeName(node)} status (NetworkUnavailable=${status})`);
}
