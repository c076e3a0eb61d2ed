/** Small builders the three planners share: diffs, JSON patches, gates with their deadlines. */
import { createTwoFilesPatch } from 'diff';
import jsonPatch from 'fast-json-patch';
import { MIGRATION_LEASE_NAME } from '../../leader-migration/index.js';
import type { Component, Distro, Gate, JsonPatchOp } from '../../model/plan-types.js';
import { CCM_CHART } from '../../ccm/index.js';
import { runningForms } from './releases.js';

/** A unified diff for review; empty when nothing changed. */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  return createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3 });
}

/** RFC 6902 operations that turn `before` into `after` (what a step's transformation changed). */
export function jsonPatchBetween(before: unknown, after: unknown): JsonPatchOp[] {
  return jsonPatch.compare(before as object, after as object) as JsonPatchOp[];
}

/** Deadlines, in seconds. Rollouts of a whole Rancher cluster take a while; lease hand-overs do not. */
export const TIMEOUTS = {
  clusterRollout: 3600,
  controlPlaneFlags: 3600,
  lease: 300,
  daemonSet: 900,
  nodes: 900,
  loadBalancers: 600,
  cordon: 120,
  rbac: 60,
  /** A version change rolls every node, control plane and workers. */
  versionRollout: 3600,
} as const;

export const gates = {
  clusterRolledOut: (): Gate => ({ type: 'cluster-rolled-out', timeoutSeconds: TIMEOUTS.clusterRollout }),
  controlPlaneFlags: (cloudProvider: 'aws' | 'external', kcmLeaderMigration: boolean): Gate => ({
    type: 'control-plane-flags',
    expect: { cloudProvider, kcmLeaderMigration },
    timeoutSeconds: TIMEOUTS.controlPlaneFlags,
  }),
  migrationLeaseHeld: (by: Component): Gate => ({
    type: 'migration-lease-held',
    leaseName: MIGRATION_LEASE_NAME,
    by,
    timeoutSeconds: TIMEOUTS.lease,
  }),
  ccmRolledOut: (): Gate => ({
    type: 'daemonset-rolled-out',
    namespace: CCM_CHART.namespace,
    name: CCM_CHART.daemonSet,
    timeoutSeconds: TIMEOUTS.daemonSet,
  }),
  /** kubeadm: the CCM static pod runs its new manifest on every control-plane node (the chart's is ccmRolledOut). */
  ccmStaticPods: (expect: { imageTag?: string; leaderMigration?: boolean }): Gate => ({
    type: 'ccm-static-pods',
    expect,
    timeoutSeconds: TIMEOUTS.daemonSet,
  }),
  nodesCordoned: (selector: string): Gate => ({
    type: 'nodes-cordoned',
    selector,
    timeoutSeconds: TIMEOUTS.cordon,
  }),
  nodesInitialized: (): Gate => ({ type: 'nodes-initialized', timeoutSeconds: TIMEOUTS.nodes }),
  /** Every kubelet, the API server and the control-plane pods run `release` (in the distribution's forms). */
  kubernetesVersion: (distro: Distro, release: string): Gate => {
    const forms = runningForms(distro, release);
    return {
      type: 'kubernetes-version',
      expect: {
        kubeletVersion: forms.kubeletVersion,
        gitVersion: forms.gitVersion,
        ...(forms.imageTag !== undefined ? { imageTag: forms.imageTag } : {}),
      },
      timeoutSeconds: TIMEOUTS.versionRollout,
    };
  },
  loadBalancersKept: (): Gate => ({ type: 'load-balancers-kept', timeoutSeconds: TIMEOUTS.loadBalancers }),
  noOwnershipOverlap: (): Gate => ({ type: 'no-ownership-overlap' }),
  promiseKept: (): Gate => ({ type: 'promise-kept' }),
  migrationLeaseRbac: (user: string): Gate => ({
    type: 'rbac-allows',
    user,
    verbs: ['create', 'list', 'get', 'update'],
    resource: 'leases',
    namespace: 'kube-system',
    resourceName: MIGRATION_LEASE_NAME,
    timeoutSeconds: TIMEOUTS.rbac,
  }),
};

/** The gates that say the cloud controllers moved to the CCM and nothing broke on the way. */
export function handOverGates(): Gate[] {
  return [
    gates.migrationLeaseHeld('cloud-controller-manager'),
    gates.ccmRolledOut(),
    gates.nodesInitialized(),
    gates.loadBalancersKept(),
    gates.noOwnershipOverlap(),
  ];
}
