/**
 * Connections to the clusters a migration touches: the downstream cluster (--kubeconfig/--context, or the
 * kubeconfig Rancher keeps for it with --downstream-from-rancher) and, for RKE2 under Rancher, the management
 * cluster (--rancher-context in the same kubeconfig, or --rancher-in-cluster in a pod).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock, Random } from '../../clock/index.js';
import { InternalError } from '../../errors/index.js';
import { loadKubeConfig } from '../../adapters/kube/kubeconfig.js';
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { KubeObjects } from '../../adapters/kube/kube-objects.js';
import {
  DeferredObjects,
  inClusterKubeConfig,
  rancherKubeConfig,
} from '../../adapters/kube/rancher-access.js';
import { parseClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import type { ObjectStore } from '../../engine/ports.js';

export interface ClusterTargets {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly rancherContext?: string;
  readonly rancherInCluster?: boolean;
  readonly downstreamFromRancher?: boolean;
  /** The provisioning Cluster (needed to find its kubeconfig Secret). */
  readonly cluster?: string;
}

export interface Clusters {
  readonly downstream: ObjectStore;
  readonly management?: ObjectStore;
}

export type Connect = (targets: ClusterTargets) => Clusters;

export function kubeconfigConnect(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  readonly random?: Random;
}): Connect {
  const objects = (kc: KubeConfig) =>
    new KubeObjects(
      KubeClient.fromKubeConfig(kc, {
        clock: options.clock,
        ...(options.random ? { random: options.random } : {}),
      }),
    );
  return (targets) => {
    const managementConfig = managementKubeConfig(targets, options.env);
    const management = managementConfig ? objects(managementConfig) : undefined;
    let downstream: ObjectStore;
    if (targets.downstreamFromRancher) {
      if (!management || !targets.cluster)
        throw new InternalError('--downstream-from-rancher without Rancher access passed validateTargets');
      const ref = parseClusterRef(targets.cluster);
      downstream = new DeferredObjects(async () => objects(await rancherKubeConfig(management, ref)));
    } else {
      downstream = objects(
        loadKubeConfig({ kubeconfig: targets.kubeconfig, context: targets.context }, options.env),
      );
    }
    return { downstream, ...(management ? { management } : {}) };
  };
}

/** Rancher's local cluster: --rancher-context in the kubeconfig, or the pod's own service account. */
export function managementKubeConfig(
  targets: ClusterTargets,
  env: Readonly<Record<string, string | undefined>>,
): KubeConfig | undefined {
  if (targets.rancherInCluster) return inClusterKubeConfig(env);
  if (targets.rancherContext)
    return loadKubeConfig(
      { kubeconfig: targets.kubeconfig, context: targets.rancherContext, contextFlag: '--rancher-context' },
      env,
    );
  return undefined;
}

/**
 * Both clusters' kubeconfigs, for code that needs client-node's KubeConfig itself (preflight's snapshot
 * reader): the downstream one read from Rancher's Secret when asked.
 */
export async function resolveKubeConfigs(
  targets: ClusterTargets,
  env: Readonly<Record<string, string | undefined>>,
  clock: Clock,
): Promise<{ readonly downstream: KubeConfig; readonly management?: KubeConfig }> {
  const management = managementKubeConfig(targets, env);
  if (targets.downstreamFromRancher && management && targets.cluster) {
    const objects = new KubeObjects(KubeClient.fromKubeConfig(management, { clock }));
    return { downstream: await rancherKubeConfig(objects, parseClusterRef(targets.cluster)), management };
  }
  return {
    downstream: loadKubeConfig({ kubeconfig: targets.kubeconfig, context: targets.context }, env),
    ...(management ? { management } : {}),
  };
}

export function objectsFor(clusters: Clusters) {
  return (api: 'downstream' | 'management') =>
    api === 'management' ? (clusters.management ?? clusters.downstream) : clusters.downstream;
}
