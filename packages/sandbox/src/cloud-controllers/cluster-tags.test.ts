import { describe, expect, it } from 'vitest';
import { clusterIdFromTags, hasClusterTag, ownedTags } from './cluster-tags.js';

const tag = (Key: string, Value = 'owned') => ({ Key, Value });

describe('cluster tags', () => {
  it('finds the id in kubernetes.io/cluster/<id>', () => {
    expect(clusterIdFromTags([tag('Name', 'x'), tag('kubernetes.io/cluster/prod')])).toEqual({
      kind: 'found',
      clusterId: 'prod',
      legacy: false,
    });
  });

  it('prefers a matching legacy KubernetesCluster tag and marks it legacy', () => {
    expect(clusterIdFromTags([tag('KubernetesCluster', 'prod'), tag('kubernetes.io/cluster/prod')])).toEqual({
      kind: 'found',
      clusterId: 'prod',
      legacy: true,
    });
  });

  it('reports none when untagged', () => {
    expect(clusterIdFromTags([tag('Name', 'x')])).toEqual({ kind: 'none' });
    expect(clusterIdFromTags(undefined)).toEqual({ kind: 'none' });
  });

  it('refuses two cluster ids with upstream messages', () => {
    expect(clusterIdFromTags([tag('kubernetes.io/cluster/a'), tag('kubernetes.io/cluster/b')])).toEqual({
      kind: 'error',
      message: 'Found multiple cluster tags with prefix kubernetes.io/cluster/ ("a" and "b")',
    });
    expect(clusterIdFromTags([tag('KubernetesCluster', 'a'), tag('kubernetes.io/cluster/b')])).toEqual({
      kind: 'error',
      message: 'clusterID tags did not match: "b" vs "a"',
    });
  });

  it('matches resources by the new or legacy tag, and everything without a cluster id', () => {
    expect(hasClusterTag([tag('kubernetes.io/cluster/prod', 'shared')], 'prod')).toBe(true);
    expect(hasClusterTag([tag('KubernetesCluster', 'prod')], 'prod')).toBe(true);
    expect(hasClusterTag([tag('kubernetes.io/cluster/dev')], 'prod')).toBe(false);
    expect(hasClusterTag([], undefined)).toBe(true);
  });

  it('builds owned tags, with the legacy tag only for legacy clusters', () => {
    expect(ownedTags('prod', false, { a: 'b' })).toEqual({ a: 'b', 'kubernetes.io/cluster/prod': 'owned' });
    expect(ownedTags('prod', true)).toEqual({
      KubernetesCluster: 'prod',
      'kubernetes.io/cluster/prod': 'owned',
    });
    expect(ownedTags(undefined, false, { a: 'b' })).toEqual({ a: 'b' });
  });
});
