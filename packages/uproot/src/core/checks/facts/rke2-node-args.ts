/**
 * RKE2 records its command line and config file settings on the Node (annotation `rke2.io/node-args`, a JSON
 * array such as `["server","--cloud-provider-name","aws"]`). Read as flag → value; undefined when absent or
 * unreadable.
 */
import type { NodeFacts } from '../../model/snapshot.js';

export function rke2NodeArgs(node: NodeFacts): Map<string, string> | undefined {
  const raw = node.annotations['rke2.io/node-args'];
  if (!raw) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!Array.isArray(args)) return undefined;
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = String(args[i]);
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1));
    else {
      const next = args[i + 1];
      const value = typeof next === 'string' && !next.startsWith('--') ? next : 'true';
      out.set(a.slice(2), value);
      if (value === next) i++;
    }
  }
  return out;
}
