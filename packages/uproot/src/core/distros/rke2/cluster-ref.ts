/**
 * The one parser of a Rancher provisioning Cluster reference (`--cluster NAME` or `NAMESPACE/NAME`), used by
 * every command that reads or edits the Cluster and by the journal's location beside it.
 */
import { InputError } from '../../../errors/index.js';

/** Where Rancher keeps the provisioning Clusters it manages. */
export const RANCHER_NAMESPACE = 'fleet-default';

export interface RancherClusterRef {
  readonly namespace: string;
  readonly name: string;
}

// Namespaces and Cluster names are DNS labels/subdomains (lowercase alphanumerics, '-' and '.').
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** `NAME` (namespace fleet-default) or `NAMESPACE/NAME`; anything else is an InputError naming the flag. */
export function parseClusterRef(value: string, field = '--cluster'): RancherClusterRef {
  const parts = value.split('/');
  if (parts.length > 2 || parts.some((p) => !NAME.test(p))) {
    throw new InputError('UP-CLUSTER-REF-INVALID', `"${value}" is not a cluster name`, {
      location: { field, value },
      hint: 'pass NAME or NAMESPACE/NAME of the provisioning.cattle.io Cluster (namespace fleet-default by default)',
    });
  }
  return parts.length === 2
    ? { namespace: parts[0]!, name: parts[1]! }
    : { namespace: RANCHER_NAMESPACE, name: parts[0]! };
}
