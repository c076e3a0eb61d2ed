/**
 * Which cluster a command talks to (--kubeconfig/--context, Rancher's --rancher-context with --cluster, or a
 * --cluster-file) and the one check of how those flags combine, shared by every command that takes them.
 */
import { parseClusterRef } from '../core/distros/rke2/cluster-ref.js';
import { InputError } from '../errors/index.js';

export interface TargetFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  /** Rancher's management cluster context (RKE2 under Rancher). */
  readonly rancherContext?: string;
  /** The provisioning Cluster: NAME or NAMESPACE/NAME (fleet-default by default). */
  readonly cluster?: string;
  /** An RKE cluster.yml, an RKE2 Cluster YAML, or kubeadm manifests (a file or a directory). */
  readonly clusterFile?: string;
  /** Reach Rancher's local cluster with this pod's service account instead of --rancher-context. */
  readonly rancherInCluster?: boolean;
  /** Reach the downstream cluster with the kubeconfig Rancher keeps in the `<cluster>-kubeconfig` Secret. */
  readonly downstreamFromRancher?: boolean;
}

/** The command reaches Rancher's local cluster (with --rancher-context or in-cluster). */
export function viaRancher(flags: TargetFlags): boolean {
  return Boolean(flags.rancherContext || flags.rancherInCluster);
}

/** Throws an InputError (UP-TARGET-FLAGS, or UP-CLUSTER-REF-INVALID for a bad --cluster) before anything is read. */
export function validateTargets(flags: TargetFlags): void {
  if (flags.rancherContext && flags.rancherInCluster) {
    throw new InputError('UP-TARGET-FLAGS', '--rancher-context and --rancher-in-cluster are alternatives', {
      location: { field: '--rancher-in-cluster' },
      hint: 'in a pod of Rancher’s local cluster pass --rancher-in-cluster; elsewhere --rancher-context',
    });
  }
  if (flags.downstreamFromRancher && (flags.context || !flags.cluster)) {
    throw new InputError(
      'UP-TARGET-FLAGS',
      flags.context
        ? '--downstream-from-rancher and --context are alternatives'
        : '--downstream-from-rancher needs --cluster NAME',
      {
        location: { field: '--downstream-from-rancher' },
        hint: 'reach the downstream cluster either through Rancher’s kubeconfig Secret (--cluster with --downstream-from-rancher) or with --context',
      },
    );
  }
  if (flags.rancherInCluster && !flags.cluster) {
    throw new InputError('UP-TARGET-FLAGS', '--rancher-in-cluster needs --cluster NAME', {
      location: { field: '--cluster' },
      hint: 'pass --cluster with the provisioning.cattle.io Cluster, e.g. --cluster fleet-default/prod',
    });
  }
  if (flags.rancherContext && !flags.cluster) {
    throw new InputError('UP-TARGET-FLAGS', '--rancher-context needs --cluster NAME', {
      location: { field: '--cluster' },
      hint: 'pass --cluster with the provisioning.cattle.io Cluster, e.g. --cluster prod or --cluster fleet-default/prod',
    });
  }
  if (flags.cluster && !viaRancher(flags)) {
    throw new InputError(
      'UP-TARGET-FLAGS',
      '--cluster needs --rancher-context (the Rancher management cluster)',
      {
        location: { field: '--rancher-context' },
        hint: "pass --rancher-context with the kubeconfig context of Rancher's local cluster",
      },
    );
  }
  if (flags.clusterFile && viaRancher(flags)) {
    throw new InputError('UP-TARGET-FLAGS', '--cluster-file and --rancher-context are alternatives', {
      location: { field: '--cluster-file', value: flags.clusterFile },
      hint: 'pass one source of the cluster definition',
    });
  }
  if (flags.cluster) parseClusterRef(flags.cluster);
}
