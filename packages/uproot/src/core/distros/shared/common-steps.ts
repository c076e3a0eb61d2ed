/**
 * Steps the planners build the same way: wording, selectors and sources differ, the step's identity and
 * (for RKE2 and RKE, whose every edit is rolled out node by node) its gates do not.
 */
import type { Artifact, Change, Gate, PlanStep } from '../../model/plan-types.js';
import {
  LEADER_LOCKING_ROLE,
  migrationLeasePatch,
  revokeMigrationLeasePatch,
} from './migration-lease-rbac.js';
import { gates, handOverGates } from './plan-building.js';

/** What a planner words itself; the rest of the step is the same for every distribution. */
interface StepParts {
  readonly description: string;
  readonly source: string;
  readonly changes: Change[];
  readonly undo: PlanStep['undo'];
}

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
      changes: [uncordonChange(selector)],
    },
    optional: false,
  };
}

export function uncordonChange(selector: string): Change {
  return { type: 'uncordon-nodes', description: `Uncordon nodes matching ${selector}.`, selector };
}

/** RKE2 and RKE: the cluster is rolled out with leader migration on the (still in-tree) KCMs. */
export function enableLeaderMigrationStep(parts: StepParts): PlanStep {
  return {
    id: 'enable-leader-migration',
    title: 'Enable leader migration on kube-controller-manager',
    description: parts.description,
    source: parts.source,
    changes: parts.changes,
    gates: [
      gates.clusterRolledOut(),
      gates.controlPlaneFlags('aws', true),
      gates.migrationLeaseHeld('kube-controller-manager'),
    ],
    undo: parts.undo,
    optional: false,
  };
}

/**
 * RKE2 and RKE: the cordoned control plane is uncordoned, then the rollout to the external provider. With an
 * upgrade folded in (seed 002), `versionGate` proves the whole cluster runs the new release.
 */
export function switchToExternalStep(
  parts: StepParts & { readonly selector: string; readonly versionGate?: Gate },
): PlanStep {
  return {
    id: 'switch-to-external',
    title: 'Switch the cluster to the external cloud provider',
    description: parts.description,
    source: parts.source,
    // The uncordon comes first: with drain disabled Rancher uncordons nothing (rancher/rancher
    // pkg/capr/planner/drain.go), so a run stopped between the switch and a later uncordon would leave the CCM
    // pods unschedulable while the roll turns the KCMs' cloud controllers off. Leader migration keeps a CCM that
    // starts before the roll safe.
    changes: [uncordonChange(parts.selector), ...parts.changes],
    gates: [
      gates.clusterRolledOut(),
      ...(parts.versionGate ? [parts.versionGate] : []),
      gates.controlPlaneFlags('external', false),
      ...handOverGates(),
    ],
    undo: parts.undo,
    optional: false,
  };
}

/** Every distribution: leader migration off on the CCM, optional (keeping it makes a rollback simpler). */
export function disableLeaderMigrationStep(parts: StepParts & { readonly gates: Gate[] }): PlanStep {
  return {
    id: 'disable-leader-migration',
    title: 'Disable leader migration on the CCM (optional)',
    description: parts.description,
    source: parts.source,
    changes: parts.changes,
    gates: parts.gates,
    undo: parts.undo,
    optional: true,
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
