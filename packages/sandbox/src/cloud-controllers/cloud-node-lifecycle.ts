import type { V1Node } from '@kubernetes/client-node';
import { guard, runPeriodically, type ControllerContext } from './controller-context.js';
import { errorText } from './error-text.js';
import { isKubeNotFound } from './kube-api.js';
import { clone, hasTaint, nodeName, readyStatus, SHUTDOWN_TAINT, withoutTaint } from './node-helpers.js';
import { updateNode } from './node-update.js';

/** --node-monitor-period's default. */
export const NODE_MONITOR_PERIOD_MS = 5_000;

/** What one monitor pass did to one node. */
export type LifecycleOutcome =
  'ready' | 'untainted' | 'deleted' | 'tainted-shutdown' | 'exists' | 'unknown' | 'gone';

/**
 * cloud-node-lifecycle (MonitorNodes, every node-monitor-period): Ready nodes lose the shutdown taint; for
 * nodes that are not Ready, an instance that is terminated or not found deletes the Node, a stopped one gets
 * the `node.cloudprovider.kubernetes.io/shutdown` taint. A node whose instance cannot be looked up at all
 * (no providerID and a name EC2 cannot resolve) is left alone with "error checking if node … exists".
 */
export async function runCloudNodeLifecycleController(
  ctx: ControllerContext,
  signal: AbortSignal,
): Promise<void> {
  const informer = await ctx.informers.nodes();
  await runPeriodically({
    clock: ctx.clock,
    signal,
    periodMs: NODE_MONITOR_PERIOD_MS,
    pass: async () => {
      for (const node of informer.list()) await monitorNode(ctx, node, signal);
    },
    onError: (error) => ctx.log(`cloud-node-lifecycle monitor failed: ${errorText(error)}`),
  });
}

export async function monitorNode(
  ctx: ControllerContext,
  node: V1Node,
  signal: AbortSignal,
): Promise<LifecycleOutcome> {
  const name = nodeName(node);
  if (readyStatus(node) === 'True') {
    if (!hasTaint(node, SHUTDOWN_TAINT)) return 'ready';
    const result = await updateNode(ctx, signal, node, (current) => withTaint(current, false));
    if (result.kind !== 'updated') return result.kind === 'gone' ? 'gone' : 'ready';
    ctx.record(`kube:update node/${name} (remove ${SHUTDOWN_TAINT}: Ready again)`);
    return 'untainted';
  }

  let providerId: string;
  let exists: boolean;
  try {
    providerId = await ctx.cloud.providerIdFor({ name, providerID: node.spec?.providerID });
    exists = await ctx.cloud.instanceExists(providerId);
  } catch (error) {
    ctx.log(`error checking if node ${name} exists: ${errorText(error)}`);
    return 'unknown';
  }

  if (!exists) {
    guard(signal);
    ctx.record(`decide: delete node/${name} (instance ${providerId} no longer exists)`);
    await ctx.events.event(
      { kind: 'Node', name, uid: node.metadata?.uid },
      'Normal',
      'DeletingNode',
      `Deleting node ${name} because it does not exist in the cloud provider`,
    );
    guard(signal);
    try {
      await ctx.kube.deleteNode(name);
    } catch (error) {
      if (isKubeNotFound(error)) return 'gone';
      ctx.log(`unable to delete node ${JSON.stringify(name)}: ${errorText(error)}`);
      return 'exists';
    }
    ctx.record(`kube:delete node/${name}`);
    return 'deleted';
  }

  let shutdown: boolean;
  try {
    shutdown = await ctx.cloud.instanceShutdown(providerId);
  } catch (error) {
    ctx.log(`error checking if node ${name} is shutdown: ${errorText(error)}`);
    return 'unknown';
  }
  if (!shutdown || hasTaint(node, SHUTDOWN_TAINT)) return 'exists';
  const result = await updateNode(ctx, signal, node, (current) => withTaint(current, true));
  if (result.kind !== 'updated') return result.kind === 'gone' ? 'gone' : 'exists';
  ctx.record(`kube:update node/${name} (add ${SHUTDOWN_TAINT}: instance stopped)`);
  return 'tainted-shutdown';
}

/** The node with the shutdown taint added or removed; undefined when already so. */
function withTaint(node: V1Node, present: boolean): V1Node | undefined {
  if (hasTaint(node, SHUTDOWN_TAINT) === present) return undefined;
  const copy = clone(node);
  copy.spec ??= {};
  copy.spec.taints = present
    ? [...(copy.spec.taints ?? []), { key: SHUTDOWN_TAINT, effect: 'NoSchedule' }]
    : withoutTaint(copy.spec.taints, SHUTDOWN_TAINT);
  return copy;
}
