/**
 * The small snapshot gates are judged on, and the port that reads it. Objects are reduced to the fields the
 * gates read. The Kubernetes implementation is src/adapters/kube/gate-reader.ts (lists are paged; nodes are
 * never fetched one by one).
 */
import type { ObjectRef } from '../../core/model/plan-types.js';

export interface DaemonSetFacts {
  readonly namespace: string;
  readonly name: string;
  readonly generation?: number;
  readonly updateStrategyType?: string;
  readonly observedGeneration?: number;
  readonly desiredNumberScheduled: number;
  readonly updatedNumberScheduled: number;
  readonly numberAvailable: number;
}

export interface NodeFacts {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly unschedulable: boolean;
  readonly providerID?: string;
  readonly taints: readonly { readonly key: string; readonly effect: string; readonly value?: string }[];
  /** status.nodeInfo.kubeletVersion. */
  readonly kubeletVersion?: string;
}

export interface LeaseFacts {
  readonly namespace: string;
  readonly name: string;
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  /** RFC 3339 (MicroTime). */
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

export interface ComponentPodFacts {
  readonly name: string;
  readonly nodeName?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The component container's command followed by its args. */
  readonly args: readonly string[];
  readonly phase?: string;
  /** The Ready condition; undefined when the pod reports none. */
  readonly ready?: boolean;
  /** The component container's image (its tag carries the manager's version). */
  readonly image?: string;
  /** status.startTime (RFC 3339): a lease identity first seen before it belongs to an earlier process. */
  readonly startTime?: string;
}

export interface ClusterObjectFacts {
  readonly generation?: number;
  readonly observedGeneration?: number;
  /**
   * RKE under Rancher (clusters.management.cattle.io/v3, which has no observedGeneration): whether
   * status.appliedSpec holds the RKE options of the current spec, as Rancher records it after a successful
   * `rke up` (rancher/rancher pkg/controllers/management/clusterprovisioner/provisioner.go reconcileCluster).
   */
  readonly appliedSpecCurrent?: boolean;
  /** status.failedSpec is set: Rancher's last `rke up` of this spec failed (recordFailure). */
  readonly failedSpec?: boolean;
  readonly ready?: boolean;
  readonly conditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason?: string;
    readonly message?: string;
  }[];
}

export interface ServiceFacts {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  readonly hostnames: readonly string[];
  readonly ips: readonly string[];
}

export interface AccessQuestion {
  readonly user: string;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface AccessAnswer {
  readonly allowed: boolean;
  readonly reason?: string;
}

export type ManagerComponent = 'kube-controller-manager' | 'cloud-controller-manager';

export interface GateReader {
  daemonSet(namespace: string, name: string): Promise<DaemonSetFacts | undefined>;
  nodes(labelSelector?: string): Promise<NodeFacts[]>;
  leases(namespace: string): Promise<LeaseFacts[]>;
  /** kube-system pods of a controller manager (static pods of kubeadm and RKE2, the CCM chart's DaemonSet pods). */
  componentPods(component: ManagerComponent): Promise<ComponentPodFacts[]>;
  /**
   * kube-system pods of the control-plane components that run the cluster's release (kube-apiserver,
   * kube-controller-manager, kube-scheduler static pods; none on RKE, whose control plane runs in Docker).
   */
  controlPlanePods(): Promise<ComponentPodFacts[]>;
  /** The API server's /version. */
  serverVersion(): Promise<{ readonly gitVersion: string }>;
  /** A Rancher provisioning Cluster (in the management cluster). */
  clusterObject(ref: ObjectRef): Promise<ClusterObjectFacts | undefined>;
  loadBalancerServices(): Promise<ServiceFacts[]>;
  canI(question: AccessQuestion): Promise<AccessAnswer>;
}
