/**
 * The cluster tags cloud-provider-aws reads (pkg/providers/v1/tags.go): `kubernetes.io/cluster/<id>` with
 * value `owned` or `shared`, and the legacy `KubernetesCluster=<id>`. When both are on a resource they must
 * name the same id ("clusterID tags did not match"), and one resource names one cluster (subnets and
 * security groups shared between clusters may carry several `shared` tags).
 */
import type { TagChange } from '../check-result.js';

export const CLUSTER_TAG_PREFIX = 'kubernetes.io/cluster/';
export const LEGACY_CLUSTER_TAG = 'KubernetesCluster';

export interface ClusterTags {
  /** id → tag value, from `kubernetes.io/cluster/<id>`. */
  readonly ids: ReadonlyMap<string, string>;
  readonly legacy?: string;
}

export function clusterTagsOf(tags: Readonly<Record<string, string>>): ClusterTags {
  const ids = new Map<string, string>();
  for (const [key, value] of Object.entries(tags)) {
    if (key.startsWith(CLUSTER_TAG_PREFIX)) ids.set(key.slice(CLUSTER_TAG_PREFIX.length), value);
  }
  const legacy = tags[LEGACY_CLUSTER_TAG];
  return legacy === undefined ? { ids } : { ids, legacy };
}

export function clusterTagKey(id: string): string {
  return `${CLUSTER_TAG_PREFIX}${id}`;
}

/** The most common id among resources (ties: alphabetical), for the cluster the instances mostly agree on. */
export function dominantClusterId(tagSets: readonly Readonly<Record<string, string>>[]): string | undefined {
  const counts = new Map<string, number>();
  for (const tags of tagSets) {
    const t = clusterTagsOf(tags);
    const ids = t.ids.size > 0 ? [...t.ids.keys()] : t.legacy ? [t.legacy] : [];
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/** Groups per-resource tag changes into one change per key and value, in a stable order. */
export function groupTagChanges(
  changes: readonly { resourceId: string; key: string; value?: string }[],
): TagChange[] {
  const groups = new Map<string, TagChange & { resourceIds: string[] }>();
  for (const c of changes) {
    const k = `${c.key}\u0000${c.value ?? '\u0001'}`;
    const g = groups.get(k) ?? {
      resourceIds: [],
      key: c.key,
      ...(c.value !== undefined ? { value: c.value } : {}),
    };
    if (!g.resourceIds.includes(c.resourceId)) g.resourceIds.push(c.resourceId);
    groups.set(k, g);
  }
  return [...groups.values()].map((g) => ({ ...g, resourceIds: [...g.resourceIds].sort() }));
}

/** `aws ec2 create-tags` / `delete-tags` commands for the changes, at most 500 resources per command. */
export function tagCommands(
  region: string,
  create: readonly TagChange[],
  remove: readonly TagChange[],
): string[] {
  const chunks = (ids: readonly string[]) => {
    const out: string[][] = [];
    for (let i = 0; i < ids.length; i += 500) out.push(ids.slice(i, i + 500));
    return out;
  };
  const commands: string[] = [];
  for (const c of remove) {
    for (const ids of chunks(c.resourceIds)) {
      commands.push(
        `aws ec2 delete-tags --region ${region} --resources ${ids.join(' ')} --tags Key=${c.key}`,
      );
    }
  }
  for (const c of create) {
    for (const ids of chunks(c.resourceIds)) {
      commands.push(
        `aws ec2 create-tags --region ${region} --resources ${ids.join(' ')} --tags Key=${c.key},Value=${c.value ?? ''}`,
      );
    }
  }
  return commands;
}
