/**
 * Connections to the clusters a migration touches: the downstream cluster (--kubeconfig/--context) and, for
 * RKE2 under Rancher, the management cluster (--rancher-context in the same kubeconfig).
 */
import type { Clock, Random } from '../../clock/index.js';
import { loadKubeConfig } from '../../adapters/kube/kubeconfig.js';
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { KubeObjects } from '../../adapters/kube/kube-objects.js';
import type { ObjectStore } from '../../engine/ports.js';

export interface ClusterTargets {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly rancherContext?: string;
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
  const client = (context: string | undefined, kubeconfig: string | undefined) =>
    new KubeObjects(
      KubeClient.fromKubeConfig(loadKubeConfig({ kubeconfig, context }, options.env), {
        clock: options.clock,
        ...(options.random ? { random: options.random } : {}),
      }),
    );
  return (targets) => ({
    downstream: client(targets.context, targets.kubeconfig),
    ...(targets.rancherContext ? { management: client(targets.rancherContext, targets.kubeconfig) } : {}),
  });
}

export function objectsFor(clusters: Clusters) {
  return (api: 'downstream' | 'management') =>
    api === 'management' ? (clusters.management ?? clusters.downstream) : clusters.downstream;
}
