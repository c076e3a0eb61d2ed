import type { Scenario } from '../../scenarios/index.js';
import type { KubeObject } from '../kube/kube-types.js';
import { kubeTime } from '../kube/kube-types.js';
import type { DistroVersion } from '../layout/versions.js';
import { stringify } from 'yaml';

/**
 * Rancher's `provisioning.cattle.io/v1` Cluster for an RKE2 twin (a custom cluster: machines registered
 * with the node command, no machine pools), and the status Rancher's controllers keep on it.
 *
 * Status contract (what uproot's `cluster-rolled-out` gate reads): when the spec changes the planner sets
 * `status.observedGeneration` to the new `metadata.generation` in the same write that sets condition
 * `Updated` to "False" and `Reconciling` to "True" (message: which nodes are being configured); when every
 * node runs the new plan it sets `Updated`, `Provisioned` and `Ready` to "True", `Reconciling` to "False".
 * `status.ready` stays true throughout (the cluster agent stays connected), as in Rancher.
 */

export const RANCHER_NAMESPACE = 'fleet-default';

export function initialProvisioningCluster(scenario: Scenario, version: DistroVersion): KubeObject {
  const additional = scenario.ccm
    ? stringify({
        apiVersion: 'helm.cattle.io/v1',
        kind: 'HelmChart',
        metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
        spec: {
          chart: 'aws-cloud-controller-manager',
          repo: 'https://kubernetes.github.io/cloud-provider-aws',
          targetNamespace: 'kube-system',
          bootstrap: true,
          valuesContent: stringify(scenario.ccm.values),
        },
      })
    : '';
  return {
    apiVersion: 'provisioning.cattle.io/v1',
    kind: 'Cluster',
    metadata: {
      name: scenario.clusterName,
      namespace: RANCHER_NAMESPACE,
      annotations: { 'field.cattle.io/creatorId': 'user-sandbox' },
    },
    spec: {
      kubernetesVersion: version.configured,
      localClusterAuthEndpoint: {},
      rkeConfig: {
        additionalManifest: additional,
        chartValues: { 'rke2-calico': {} },
        etcd: { snapshotRetention: 5, snapshotScheduleCron: '0 */5 * * *' },
        machineGlobalConfig: {
          'cloud-provider-name': scenario.cloudProvider === 'in-tree' ? 'aws' : 'external',
          cni: 'calico',
          'disable-kube-proxy': false,
          'etcd-expose-metrics': false,
        },
        machineSelectorConfig: [{ config: { 'protect-kernel-defaults': false } }],
        registries: {},
        upgradeStrategy: {
          ...defaultUpgradeStrategy(),
          ...scenario.upgradeStrategy,
        },
      },
    },
  };
}

/** What Rancher's UI fills in for a new custom cluster. */
function defaultUpgradeStrategy(): Record<string, unknown> {
  return {
    controlPlaneConcurrency: '1',
    controlPlaneDrainOptions: {
      enabled: false,
      deleteEmptyDirData: true,
      ignoreDaemonSets: true,
      timeout: 120,
    },
    workerConcurrency: '1',
    workerDrainOptions: {
      enabled: false,
      deleteEmptyDirData: true,
      ignoreDaemonSets: true,
      timeout: 120,
    },
  };
}

export interface ClusterCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly lastUpdateTime: string;
  readonly reason?: string;
  readonly message?: string;
}

function condition(
  type: string,
  ok: boolean,
  now: number,
  message?: string,
  reason?: string,
): ClusterCondition {
  return {
    type,
    status: ok ? 'True' : 'False',
    lastUpdateTime: kubeTime(now),
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** Rancher's Cluster status: Ready and Provisioned throughout; Updated, Reconciling, Stalled per rollout phase. */
function rolloutStatus(
  previous: unknown,
  generation: number,
  now: number,
  phase: { updated: boolean; reconciling: boolean; stalled: boolean; message?: string; reason?: string },
): Record<string, unknown> {
  const { message, reason } = phase;
  return {
    ...base(previous),
    observedGeneration: generation,
    ready: true,
    conditions: [
      condition('Ready', true, now),
      condition('Provisioned', true, now),
      phase.updated ? condition('Updated', true, now) : condition('Updated', false, now, message, reason),
      phase.reconciling ? condition('Reconciling', true, now, message) : condition('Reconciling', false, now),
      phase.stalled ? condition('Stalled', true, now, message, reason) : condition('Stalled', false, now),
    ],
  };
}

/** The status while the planner rolls generation `generation` out; `message` names the nodes in progress. */
export function reconcilingStatus(
  previous: unknown,
  generation: number,
  now: number,
  message: string,
): Record<string, unknown> {
  return rolloutStatus(previous, generation, now, {
    updated: false,
    reconciling: true,
    stalled: false,
    message,
    reason: 'Waiting',
  });
}

/** The status once every node runs generation `generation`. */
export function settledStatus(previous: unknown, generation: number, now: number): Record<string, unknown> {
  return rolloutStatus(previous, generation, now, { updated: true, reconciling: false, stalled: false });
}

/** The status when a plan cannot be applied (bad configuration): Stalled with the reason. */
export function stalledStatus(
  previous: unknown,
  generation: number,
  now: number,
  message: string,
): Record<string, unknown> {
  return rolloutStatus(previous, generation, now, {
    updated: false,
    reconciling: false,
    stalled: true,
    message,
    reason: 'Error',
  });
}

function base(previous: unknown): Record<string, unknown> {
  const p = typeof previous === 'object' && previous !== null ? (previous as Record<string, unknown>) : {};
  return {
    clusterName: p.clusterName ?? 'c-m-sandbox1',
    clientSecretName: p.clientSecretName ?? 'sandbox-kubeconfig',
    fleetWorkspaceName: RANCHER_NAMESPACE,
    agentDeployed: true,
  };
}
