import type { V1Node } from '@kubernetes/client-node';
import { guard, type ControllerContext } from './controller-context.js';
import { isKubeConflict, isKubeNotFound } from './kube-api.js';

export type NodeUpdateResult =
  | { readonly kind: 'updated'; readonly node: V1Node }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'gone' }
  | { readonly kind: 'conflict' };

/**
 * Update-with-retry-on-conflict (client-go's RetryOnConflict around Nodes().Update): applies `mutate` to
 * `start`, PUTs it with its resourceVersion, and on 409 re-reads and re-applies. `mutate` returns undefined
 * when nothing needs changing. Never writes after `signal` aborts.
 */
export async function updateNode(
  ctx: ControllerContext,
  signal: AbortSignal,
  start: V1Node,
  mutate: (node: V1Node) => V1Node | undefined,
  attempts = 5,
): Promise<NodeUpdateResult> {
  const name = start.metadata?.name ?? '';
  let current = start;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      try {
        current = await ctx.kube.readNode(name);
      } catch (error) {
        if (isKubeNotFound(error)) return { kind: 'gone' };
        throw error;
      }
    }
    const wanted = mutate(current);
    if (!wanted) return { kind: 'unchanged' };
    guard(signal);
    try {
      return { kind: 'updated', node: await ctx.kube.replaceNode(wanted) };
    } catch (error) {
      if (isKubeNotFound(error)) return { kind: 'gone' };
      if (!isKubeConflict(error)) throw error;
    }
  }
  return { kind: 'conflict' };
}
