/**
 * Which region to read: --region, then AWS_REGION (AWS_DEFAULT_REGION), then the nodes' own
 * `topology.kubernetes.io/region` label, then the zone in their providerIDs.
 */
import { parseProviderId } from '../../core/checks/index.js';
import type { NodeFacts } from '../../core/model/snapshot.js';

export function resolveRegion(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  nodes: readonly NodeFacts[],
): { region: string; source: string } | undefined {
  if (flag) return { region: flag, source: '--region' };
  if (env.AWS_REGION) return { region: env.AWS_REGION, source: 'AWS_REGION' };
  if (env.AWS_DEFAULT_REGION) return { region: env.AWS_DEFAULT_REGION, source: 'AWS_DEFAULT_REGION' };
  for (const n of nodes) {
    const label =
      n.labels['topology.kubernetes.io/region'] ?? n.labels['failure-domain.beta.kubernetes.io/region'];
    if (label) return { region: label, source: `label topology.kubernetes.io/region on node ${n.name}` };
  }
  for (const n of nodes) {
    const pid = n.providerID ? parseProviderId(n.providerID) : undefined;
    const zone = pid?.kind === 'instance' ? pid.zone : pid?.kind === 'fargate' ? pid.zone : undefined;
    if (zone && /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/.test(zone))
      return { region: zone.slice(0, -1), source: `providerID of node ${n.name}` };
  }
  return undefined;
}
