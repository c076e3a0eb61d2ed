/**
 * Where a migration's journal and lock live. Downstream clusters: ConfigMap kube-system/uproot-migration and
 * Lease kube-system/uproot-migration-lock. RKE2 under Rancher: in the management cluster's fleet-default
 * namespace, beside the provisioning Cluster the steps edit, one pair per cluster
 * (uproot-migration-<cluster>, uproot-migration-lock-<cluster>): Rancher's rollouts restart the downstream
 * control plane, while the management cluster stays up and already is the source of truth for the Cluster.
 */
import type { RancherClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import type { MigrationPlan, ObjectRef } from '../../core/model/plan-types.js';
import type { JournalLocation } from './journal-schema.js';

export const JOURNAL_NAME = 'uproot-migration';
export const LOCK_LEASE_NAME = 'uproot-migration-lock';

export function journalLocationFor(rancher: RancherClusterRef | undefined): JournalLocation {
  return rancher
    ? { api: 'management', namespace: rancher.namespace, name: `${JOURNAL_NAME}-${rancher.name}` }
    : { api: 'downstream', namespace: 'kube-system', name: JOURNAL_NAME };
}

export function lockNameFor(location: JournalLocation): string {
  return location.api === 'management'
    ? location.name.replace(JOURNAL_NAME, LOCK_LEASE_NAME)
    : LOCK_LEASE_NAME;
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
