/**
 * `uproot fleet manifests`: what `fleet migrate --as-jobs` would create, for people who deploy with GitOps
 * (Fleet, Argo CD): the namespace, ServiceAccount, Roles and RoleBindings, and one Job per cluster. The
 * clusters come from Rancher (--rancher-context with --selector/--clusters), or offline from --clusters alone
 * (each Secret then named `<cluster>-kubeconfig`, as Rancher names it).
 */
import { InputError } from '../../errors/index.js';
import { fleetManifests, parseClusterList, type JobCluster } from '../../core/fleet/index.js';
import { journalLocationFor, lockNameFor } from '../../engine/journal/journal-location.js';
import type { RunHost } from '../session/run-settings.js';
import { jobClusterOf, jobSettingsOf, type FleetJobOptions } from './fleet-jobs.js';
import { openFleet, type FleetDeps, type FleetTargets } from './fleet-session.js';

export interface FleetManifestsOptions extends FleetTargets, FleetJobOptions {
  readonly targetVersion?: string;
  readonly gateTimeoutScale?: number;
  /** Render the Jobs suspended, to start them one by one. */
  readonly suspend?: boolean;
}

export async function fleetManifestsOf(
  options: FleetManifestsOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<Record<string, unknown>[]> {
  const settings = { ...jobSettingsOf(options), ...(options.suspend ? { suspend: true } : {}) };
  let clusters: JobCluster[];
  if (options.rancherContext || options.rancherInCluster || deps.rancher) {
    const session = await openFleet(options, host, deps);
    clusters = session.members.filter((m) => m.cluster.distro === 'rke2').map(jobClusterOf);
  } else if (options.clusters) {
    clusters = parseClusterList(options.clusters).map((ref) => {
      const location = journalLocationFor(ref);
      return {
        ref,
        kubeconfigSecret: `${ref.name}-kubeconfig`,
        journal: location.name,
        lock: lockNameFor(location),
      };
    });
  } else {
    throw new InputError('UP-FLEET-RANCHER', 'fleet manifests needs the clusters: from Rancher, or named', {
      location: { field: '--clusters' },
      hint: 'pass --rancher-context (with --selector or --clusters), or --clusters a,b,c to render offline',
    });
  }
  return fleetManifests(settings, clusters);
}
