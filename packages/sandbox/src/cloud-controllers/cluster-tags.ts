/**
 * Cluster tagging as cloud-provider-aws reads it (pkg/providers/v1/tags.go): `kubernetes.io/cluster/<id>` =
 * owned|shared, plus the legacy `KubernetesCluster=<id>`. Pure functions over plain tag lists.
 */
export const CLUSTER_TAG_PREFIX = 'kubernetes.io/cluster/';
export const LEGACY_CLUSTER_TAG = 'KubernetesCluster';
export const SERVICE_NAME_TAG = 'kubernetes.io/service-name';
export const PUBLIC_ELB_SUBNET_TAG = 'kubernetes.io/role/elb';
export const INTERNAL_ELB_SUBNET_TAG = 'kubernetes.io/role/internal-elb';

export interface Tag {
  readonly Key?: string | undefined;
  readonly Value?: string | undefined;
}

/** What the tags say about the cluster id: found (possibly legacy), none, or an upstream error message. */
export type ClusterIdResult =
  | { readonly kind: 'found'; readonly clusterId: string; readonly legacy: boolean }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly message: string };

/** findClusterIDs + awsTagging.init: several ids, or legacy and new disagreeing, are errors. */
export function clusterIdFromTags(tags: readonly Tag[] | undefined): ClusterIdResult {
  let legacy = '';
  let current = '';
  for (const tag of tags ?? []) {
    const key = tag.Key ?? '';
    if (key.startsWith(CLUSTER_TAG_PREFIX)) {
      const id = key.slice(CLUSTER_TAG_PREFIX.length);
      if (current !== '') {
        return {
          kind: 'error',
          message: `Found multiple cluster tags with prefix ${CLUSTER_TAG_PREFIX} (${JSON.stringify(current)} and ${JSON.stringify(id)})`,
        };
      }
      current = id;
    }
    if (key === LEGACY_CLUSTER_TAG) {
      const id = tag.Value ?? '';
      if (legacy !== '') {
        return {
          kind: 'error',
          message: `Found multiple ${LEGACY_CLUSTER_TAG} tags (${JSON.stringify(legacy)} and ${JSON.stringify(id)})`,
        };
      }
      legacy = id;
    }
  }
  if (legacy !== '') {
    if (current !== '' && current !== legacy) {
      return {
        kind: 'error',
        message: `clusterID tags did not match: ${JSON.stringify(current)} vs ${JSON.stringify(legacy)}`,
      };
    }
    return { kind: 'found', clusterId: legacy, legacy: true };
  }
  return current === '' ? { kind: 'none' } : { kind: 'found', clusterId: current, legacy: false };
}

/** The fatal message the managers print when no cluster id can be found (k8s.io/cloud-provider). */
export const NO_CLUSTER_ID_MESSAGE =
  'no ClusterID found.  A ClusterID is required for the cloud provider to function properly.  This check can be bypassed by setting the allow-untagged-cloud option';

/** hasClusterTag: with no cluster id every resource counts; otherwise the new or legacy tag must match. */
export function hasClusterTag(tags: readonly Tag[] | undefined, clusterId: string | undefined): boolean {
  if (!clusterId) return true;
  const key = CLUSTER_TAG_PREFIX + clusterId;
  return (tags ?? []).some(
    (t) => t.Key === key || (t.Key === LEGACY_CLUSTER_TAG && (t.Value ?? '') === clusterId),
  );
}

export function tagValue(tags: readonly Tag[] | undefined, key: string): string | undefined {
  return (tags ?? []).find((t) => t.Key === key)?.Value;
}

/** buildTags(owned, extra): the tags cloud-provider-aws puts on what it creates. */
export function ownedTags(
  clusterId: string | undefined,
  legacy: boolean,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const tags: Record<string, string> = { ...extra };
  if (!clusterId) return tags;
  if (legacy) tags[LEGACY_CLUSTER_TAG] = clusterId;
  tags[CLUSTER_TAG_PREFIX + clusterId] = 'owned';
  return tags;
}
