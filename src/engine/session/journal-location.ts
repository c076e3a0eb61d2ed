/**
 * Where a migration's journal and lock live. Downstream clusters: ConfigMap kube-system/uproot-migration and
 * Lease kube-system/uproot-migration-lock. RKE2 under Rancher: in the management cluster's fleet-default
 * namespace, beside the provisioning Cluster the steps edit, one pair per cluster
 * (uproot-migration-<cluster>, uproot-migration-lock-<cluster>): Rancher's rollouts restart the downstream
 * control plane, while the management cluster stays up and already is the source of truth for the Cluster.
 */
import type { Distro, MigrationPlan, ObjectRef } from '../../core/plan/plan-types.js';
import type { JournalLocation } from '../journal/journal-schema.js';

export const JOURNAL_NAME = 'uproot-migration';
export const LOCK_LEASE_NAME = 'uproot-migration-lock';
export const RANCHER_NAMESPACE = 'fleet-default';

export interface RancherCluster {
  readonly namespace: string;
  readonly name: string;
}

/** `NAME` or `NAMESPACE/NAME` (fleet-default when no namespace is given). */
export function parseRancherCluster(value: string): RancherCluster {
  const slash = value.indexOf('/');
  return slash < 0
    ? { namespace: RANCHER_NAMESPACE, name: value }
    : { namespace: value.slice(0, slash), name: value.slice(slash + 1) };
}

export function journalLocationFor(rancher: RancherCluster | undefined): JournalLocation {
  return rancher
    ? { api: 'management', namespace: rancher.namespace, name: `${JOURNAL_NAME}-${rancher.name}` }
    : { api: 'downstream', namespace: 'kube-system', name: JOURNAL_NAME };
}

export function lockNameFor(location: JournalLocation): string {
  return location.api === 'management'
    ? location.name.replace(JOURNAL_NAME, LOCK_LEASE_NAME)
    : LOCK_LEASE_NAME;
}

const CONTROL_PLANE_SELECTOR: Readonly<Record<Distro, string>> = {
  rke2: 'node-role.kubernetes.io/control-plane=true',
  rke: 'node-role.kubernetes.io/controlplane=true',
  kubeadm: 'node-role.kubernetes.io/control-plane',
};

/** The plan's own control-plane selector (its cordon step), else the distribution's default. */
export function controlPlaneSelectorFor(plan: MigrationPlan): string {
  for (const step of plan.steps) {
    for (const change of step.changes) if (change.type === 'cordon-nodes') return change.selector;
  }
  return CONTROL_PLANE_SELECTOR[plan.distro];
}

/** The Rancher provisioning Cluster the plan edits, if any. */
export function clusterRefOf(plan: MigrationPlan): ObjectRef | undefined {
  for (const step of plan.steps) {
    for (const change of step.changes) {
      if (change.type === 'edit-cluster-definition' && !('file' in change.target)) return change.target;
    }
  }
  return undefined;
}
