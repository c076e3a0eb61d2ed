/**
 * Which downstream clusters a fleet command works on: all provisioning Clusters the label selector matched
 * (the API server filters by `--selector`), narrowed to `--clusters a,b,ns/c` when given. Rancher's own local
 * cluster (`fleet-local/local`) is never part of a fleet: uproot runs next to it, not on it.
 */
import { InputError } from '../../errors/index.js';
import { parseClusterRef, type RancherClusterRef } from '../distros/rke2/cluster-ref.js';
import { clusterKey, type FleetCluster } from './fleet-cluster.js';

/** Rancher's local cluster: the provisioning Cluster `local` in `fleet-local` (rancher/rancher pkg/fleet/const.go ClustersLocalNamespace; pkg/controllers/provisioningv2/fleetcluster/fleetcluster.go). */
export const RANCHER_LOCAL_CLUSTER: RancherClusterRef = { namespace: 'fleet-local', name: 'local' };

/** `--clusters a,b,ns/c`: each a cluster name (namespace fleet-default) or NAMESPACE/NAME. */
export function parseClusterList(value: string, field = '--clusters'): RancherClusterRef[] {
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) {
    throw new InputError('UP-FLEET-CLUSTERS', `${field} names no cluster`, {
      location: { field, value },
      hint: 'give cluster names separated by commas, e.g. --clusters prod-1,prod-2 or fleet-default/prod-1',
    });
  }
  const refs = parts.map((p) => parseClusterRef(p, field));
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = clusterKey(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface Selection {
  /** The clusters to work on, in name order. */
  readonly selected: readonly FleetCluster[];
  /** Clusters `--clusters` named that the management cluster does not have (or the selector excluded). */
  readonly missing: readonly RancherClusterRef[];
}

/** Narrows the listed clusters to the named ones (all when none are named), without Rancher's local cluster. */
export function selectClusters(
  listed: readonly FleetCluster[],
  named: readonly RancherClusterRef[] | undefined,
): Selection {
  const candidates = listed
    .filter((c) => clusterKey(c) !== clusterKey(RANCHER_LOCAL_CLUSTER))
    .slice()
    .sort((a, b) => clusterKey(a).localeCompare(clusterKey(b)));
  if (!named) return { selected: candidates, missing: [] };
  const wanted = new Set(named.map(clusterKey));
  const have = new Set(candidates.map(clusterKey));
  return {
    selected: candidates.filter((c) => wanted.has(clusterKey(c))),
    missing: named.filter((r) => !have.has(clusterKey(r))),
  };
}
