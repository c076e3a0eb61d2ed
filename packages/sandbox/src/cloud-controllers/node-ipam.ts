import { runPeriodically, guard, type ControllerContext } from './controller-context.js';
import { errorText } from './error-text.js';
import { clone, nodeName } from './node-helpers.js';
import { updateNode } from './node-update.js';
import { PodCidrAllocator } from './pod-cidr.js';
import { ComponentError } from '../component-error.js';

export const NODE_IPAM_SYNC_PERIOD_MS = 2_000;

/**
 * nodeipam (the range allocator, KCM only: AWS's CCM has no IPAM): with --allocate-node-cidrs, every node
 * without `spec.podCIDR` gets the lowest free `/<node-cidr-mask-size>` block of --cluster-cidr; the blocks
 * of existing nodes are marked used first. An exhausted range leaves the node without a CIDR and a
 * `CIDRNotAvailable` event, as upstream.
 */
export async function runNodeIpamController(ctx: ControllerContext, signal: AbortSignal): Promise<void> {
  const clusterCidr = ctx.settings.clusterCidr;
  if (!clusterCidr) throw new ComponentError('no CIDR for clusters was provided');
  const informer = await ctx.informers.nodes();
  await runPeriodically({
    clock: ctx.clock,
    signal,
    periodMs: NODE_IPAM_SYNC_PERIOD_MS,
    wake: (notify) => informer.onChange(notify),
    pass: async () => {
      const nodes = informer.list();
      // Rebuilt each pass from what the nodes say, like the allocator's start-up occupancy scan.
      const allocator = new PodCidrAllocator(clusterCidr, ctx.settings.nodeCidrMaskSize);
      for (const node of nodes) if (node.spec?.podCIDR) allocator.occupy(node.spec.podCIDR);
      for (const node of nodes) {
        if (node.spec?.podCIDR) continue;
        const name = nodeName(node);
        const cidr = allocator.next();
        if (!cidr) {
          guard(signal);
          await ctx.events.event(
            { kind: 'Node', name, uid: node.metadata?.uid },
            'Normal',
            'CIDRNotAvailable',
            `Node ${name} status is now: CIDRNotAvailable`,
          );
          continue;
        }
        const result = await updateNode(ctx, signal, node, (current) => {
          if (current.spec?.podCIDR) return undefined;
          const copy = clone(current);
          copy.spec = { ...copy.spec, podCIDR: cidr, podCIDRs: [cidr] };
          return copy;
        });
        if (result.kind === 'updated') ctx.record(`kube:update node/${name} (podCIDR ${cidr})`);
        else allocator.release(cidr);
      }
    },
    onError: (error) => ctx.log(`nodeipam sync failed: ${errorText(error)}`),
  });
}
