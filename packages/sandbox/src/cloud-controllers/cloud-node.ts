import type { V1Node } from '@kubernetes/client-node';
import { instanceMetadata, type InstanceMetadata } from './aws-cloud.js';
import { Backoff, guard, runPeriodically, type ControllerContext } from './controller-context.js';
import { errorText } from './error-text.js';
import { NETWORK_NODE_LABEL_PREFIX } from './instance-topology.js';
import { updateNode } from './node-update.js';
import {
  clone,
  hasTaint,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_BETA,
  LABEL_REGION,
  LABEL_REGION_BETA,
  LABEL_ZONE,
  LABEL_ZONE_BETA,
  nodeName,
  UNINITIALIZED_TAINT,
  withoutTaint,
} from './node-helpers.js';

/** How often the controller re-checks tainted nodes when no watch event wakes it earlier. */
export const CLOUD_NODE_SYNC_PERIOD_MS = 2_000;

export type NodeInitResult = 'initialized' | 'not-tainted' | 'gone' | 'failed';

/**
 * cloud-node (CCM only; in-tree nodes are initialized by their kubelet): for every node still carrying the
 * uninitialized taint, find its instance by provider ID, by instance id for resource-based names, or by the
 * `private-dns-name` filter, then set providerID (only when empty), the topology and instance-type labels
 * (with the deprecated beta ones), the addresses, and remove the taint. Failures leave the node tainted with a
 * Warning event carrying the real message, and are retried with backoff.
 */
export async function runCloudNodeController(ctx: ControllerContext, signal: AbortSignal): Promise<void> {
  const informer = await ctx.informers.nodes();
  const backoff = new Backoff(1_000, 5 * 60_000);
  await runPeriodically({
    clock: ctx.clock,
    signal,
    periodMs: CLOUD_NODE_SYNC_PERIOD_MS,
    wake: (notify) => informer.onChange(notify),
    pass: async () => {
      for (const node of informer.list()) {
        if (!hasTaint(node, UNINITIALIZED_TAINT)) continue;
        const name = nodeName(node);
        if (!backoff.due(name, ctx.clock.now())) continue;
        const result = await initializeNode(ctx, node, signal);
        if (result === 'failed') backoff.failed(name, ctx.clock.now());
        else backoff.succeeded(name);
      }
    },
    onError: (error) => ctx.log(`cloud-node sync failed: ${errorText(error)}`),
  });
}

/** syncNode for one tainted node. */
export async function initializeNode(
  ctx: ControllerContext,
  node: V1Node,
  signal: AbortSignal,
): Promise<NodeInitResult> {
  const name = nodeName(node);
  const target = { kind: 'Node' as const, name, uid: node.metadata?.uid };
  let providerId: string;
  try {
    providerId = await ctx.cloud.providerIdFor({ name, providerID: node.spec?.providerID });
  } catch (error) {
    guard(signal);
    const message = `failed to get provider ID for node ${name}: ${errorText(error)}`;
    ctx.record(`decide: node/${name} stays uninitialized (${errorText(error)})`);
    await ctx.events.event(target, 'Warning', 'FailedToGetProviderID', message);
    return 'failed';
  }
  let metadata: InstanceMetadata;
  try {
    const instance = await ctx.cloud.instanceForProviderId(providerId);
    metadata = instanceMetadata(instance, providerId);
    // getAdditionalLabels: the topology labels unless the node has them already.
    if (ctx.topology && !(`${NETWORK_NODE_LABEL_PREFIX}1` in (node.metadata?.labels ?? {}))) {
      const labels = await ctx.topology.labelsFor(instance.InstanceId ?? '', instance.InstanceType ?? '');
      if (Object.keys(labels).length > 0) metadata = { ...metadata, additionalLabels: labels };
    }
  } catch (error) {
    guard(signal);
    const message = `failed to get instance metadata for node ${name}: ${errorText(error)}`;
    ctx.record(`decide: node/${name} stays uninitialized (${errorText(error)})`);
    await ctx.events.event(target, 'Warning', 'FailedToGetInstanceMetadata', message);
    return 'failed';
  }

  const result = await updateNode(ctx, signal, node, (current) =>
    hasTaint(current, UNINITIALIZED_TAINT) ? applyInstanceMetadata(current, metadata) : undefined,
  );
  if (result.kind === 'unchanged') return 'not-tainted';
  if (result.kind === 'gone') return 'gone';
  if (result.kind === 'conflict') return 'failed';
  const updated = result.node;
  ctx.record(
    `kube:update node/${name} (initialize: providerID ${updated.spec?.providerID ?? ''}, remove taint)`,
  );

  if (addressesDiffer(updated.status?.addresses, metadata.addresses)) {
    guard(signal);
    await ctx.kube.patchNodeStatus(name, { status: { addresses: metadata.addresses } });
    ctx.record(`kube:patch node/${name} status (addresses)`);
  }
  await ctx.events.event(target, 'Normal', 'Synced', 'Node synced successfully');
  return 'initialized';
}

/** The node modifiers of getNodeModifiersFromCloudProvider plus the taint removal (pure). */
export function applyInstanceMetadata(node: V1Node, metadata: InstanceMetadata): V1Node {
  const copy = clone(node);
  copy.spec ??= {};
  if (!copy.spec.providerID && metadata.providerId) copy.spec.providerID = metadata.providerId;
  const labels = { ...(copy.metadata?.labels ?? {}) };
  if (metadata.instanceType) {
    labels[LABEL_INSTANCE_TYPE_BETA] = metadata.instanceType;
    labels[LABEL_INSTANCE_TYPE] = metadata.instanceType;
  }
  if (metadata.zone) {
    labels[LABEL_ZONE_BETA] = metadata.zone;
    labels[LABEL_ZONE] = metadata.zone;
  }
  if (metadata.region) {
    labels[LABEL_REGION_BETA] = metadata.region;
    labels[LABEL_REGION] = metadata.region;
  }
  Object.assign(labels, metadata.additionalLabels ?? {});
  copy.metadata = { ...copy.metadata, labels };
  copy.spec.taints = withoutTaint(copy.spec.taints, UNINITIALIZED_TAINT);
  return copy;
}

/** nodeAddressesChangeDetected. */
export function addressesDiffer(
  current: readonly { type: string; address: string }[] | undefined,
  wanted: readonly { type: string; address: string }[],
): boolean {
  const have = current ?? [];
  if (have.length !== wanted.length) return true;
  const byType = new Map(have.map((a) => [a.type, a.address]));
  return wanted.some((a) => byType.get(a.type) !== a.address);
}
