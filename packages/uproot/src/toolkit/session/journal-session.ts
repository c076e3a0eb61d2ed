/**
 * What every journaled command (migrate, rollback, status) starts with: the clock and randomness it runs on, the
 * clusters it talks to, and where the journal lives (the management cluster for RKE2 under Rancher).
 */
import { RealClock, systemRandom, type Clock, type Random } from '../../clock/index.js';
import type { ObjectStore } from '../../engine/ports.js';
import { kubeconfigConnect, type Clusters, type Connect } from './cluster-access.js';
import { parseClusterRef, type RancherClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import { journalLocationFor } from '../../engine/journal/journal-location.js';
import { readRancherClusterSource } from '../../adapters/cluster-source/cluster-source.js';
import type { TargetFlags } from '../targets.js';
import type { RunHost } from './run-settings.js';

export interface JournalSession {
  readonly clock: Clock;
  readonly random: Random;
  readonly clusters: Clusters;
  readonly rancher: RancherClusterRef | undefined;
  readonly location: ReturnType<typeof journalLocationFor>;
  /** The cluster that holds the journal and the lock. */
  readonly journalObjects: ObjectStore;
}

export function connectJournalSession(
  options: TargetFlags,
  host: RunHost,
  deps: { readonly clock?: Clock; readonly random?: Random; readonly connect?: Connect },
): JournalSession {
  const clock = deps.clock ?? new RealClock();
  const random = deps.random ?? systemRandom;
  const clusters = (deps.connect ?? kubeconfigConnect({ env: host.env, clock, random }))(options);
  const rancher = options.cluster ? parseClusterRef(options.cluster) : undefined;
  const location = journalLocationFor(rancher);
  const journalObjects = location.api === 'management' ? clusters.management! : clusters.downstream;
  return { clock, random, clusters, rancher, location, journalObjects };
}

/**
 * A --cluster that names no Rancher cluster is an error of the input (UP-CLUSTER-NOT-FOUND, exit 2) in every
 * command, found as migrate finds it (the provisioning Cluster, or RKE's v3 Cluster behind its wrapper):
 * without it, a command reading only the journal's ConfigMap would report an empty namespace as "no migration".
 */
export async function requireRancherCluster(session: JournalSession): Promise<void> {
  const { rancher, clusters } = session;
  if (rancher && clusters.management)
    await readRancherClusterSource(clusters.management, `${rancher.namespace}/${rancher.name}`);
}
