/** Steps that RKE2 and RKE plan the same way (only selectors and sources differ). */
import type { Artifact, PlanStep } from '../../plan/plan-types.js';
import {
  LEADER_LOCKING_ROLE,
  migrationLeasePatch,
  revokeMigrationLeasePatch,
} from './migration-lease-rbac.js';
import { gates } from './plan-building.js';

/**
 * The KCM's migration-lease grant. Rancher's guide has no such step, but the KCM's default leader-locking Role
 * covers only its own lease; the CCM's chart ClusterRole already covers leases.
 */
export function kcmLeaseGrantStep(): { step: PlanStep; artifact: Artifact } {
  const patch = migrationLeasePatch('kube-controller-manager');
  return {
    step: {
      id: 'grant-migration-lease',
      title: 'Allow kube-controller-manager to hold the migration lease',
      description:
        "The KCM's leader-locking Role covers only its own lease; with leader migration the KCMs also elect a leader on the lease cloud-provider-extraction-migration. Rancher's guide has no such step; seed 003's RBAC patch is applied in the downstream cluster (the CCM chart's ClusterRole already covers leases).",
      source: 'seed 003 (Kubernetes, leader migration task), "Grant access to Migration Lease"',
      changes: [patch],
      gates: [gates.migrationLeaseRbac('system:kube-controller-manager')],
      undo: {
        description: 'Remove the migration-lease rule again.',
        changes: [revokeMigrationLeasePatch('kube-controller-manager')],
      },
      optional: false,
    },
    artifact: {
      path: `rbac/${LEADER_LOCKING_ROLE['kube-controller-manager'].replace(/:+/g, '-')}.patch.json`,
      description: 'Merge patch for the KCM leader-locking Role (full rules list)',
      content: `${JSON.stringify(patch.patch, null, 2)}\n`,
    },
  };
}

export function cordonStep(selector: string, description: string, source: string): PlanStep {
  return {
    id: 'cordon-control-plane',
    title: 'Cordon the control-plane nodes',
    description,
    source,
    changes: [{ type: 'cordon-nodes', description: `Cordon nodes matching ${selector}.`, selector }],
    gates: [gates.nodesCordoned(selector)],
    undo: {
      description: 'Uncordon the control-plane nodes.',
      changes: [{ type: 'uncordon-nodes', description: `Uncordon nodes matching ${selector}.`, selector }],
    },
    optional: false,
  };
}

export function verifyProviderIdsStep(source: string): PlanStep {
  return {
    id: 'verify-provider-ids',
    title: 'Verify every node has its AWS provider ID',
    description:
      'kubectl describe nodes | grep ProviderID: every node has aws:///<az>/<instance-id> and no node.cloudprovider.kubernetes.io/uninitialized taint.',
    source,
    changes: [],
    gates: [gates.nodesInitialized()],
    undo: { description: 'Nothing to undo.', changes: [] },
    optional: false,
  };
}
