/**
 * The migration Lease RBAC of seed 003: the leader-locking Roles in kube-system must allow the migration
 * lease. Seed 003 patches `rules` with a JSON merge patch, which replaces the whole list; uproot renders the
 * full list (the role's rules plus the migration rule) so nothing the role already allowed is lost, and the
 * engine re-applies `grantMigrationLease` to the live Role so rules added by anyone else are kept too.
 *
 * Rancher's guide (seed 002) has no such step, yet the KCM's default role only covers its own lease, so a KCM
 * with leader migration enabled could not hold the migration lease; uproot grants it on every distribution.
 */
import { stringify } from 'yaml';
import { MIGRATION_LEASE_NAME } from '../../leader-migration/index.js';
import type { Change } from '../../model/plan-types.js';
import { cloneJson, deepEqual, isRecord, type JsonRecord } from '../../model/json-value.js';
import { unifiedDiff } from './plan-building.js';

export const LEADER_LOCKING_ROLE = {
  'kube-controller-manager': 'system::leader-locking-kube-controller-manager',
  'cloud-controller-manager': 'system::leader-locking-cloud-controller-manager',
} as const;
export type LeaderLockingComponent = keyof typeof LEADER_LOCKING_ROLE;

/** Kubernetes' bootstrap rules for the KCM role (plugin/pkg/auth/authorizer/rbac/bootstrappolicy); kubeadm creates no CCM role. */
export const DEFAULT_ROLE_RULES: Readonly<Record<LeaderLockingComponent, readonly JsonRecord[]>> = {
  'kube-controller-manager': [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
    {
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['kube-controller-manager'],
      verbs: ['get', 'update'],
    },
  ],
  'cloud-controller-manager': [],
};

/** Seed 003's rule, verbatim. */
export function migrationLeaseRule(): JsonRecord {
  return {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [MIGRATION_LEASE_NAME],
    verbs: ['create', 'list', 'get', 'update'],
  };
}

export function roleObject(component: LeaderLockingComponent, rules: readonly unknown[]): JsonRecord {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: LEADER_LOCKING_ROLE[component], namespace: 'kube-system' },
    rules: [...rules],
  };
}

/** The Role with the migration rule added (unless an identical rule is there). Pure and idempotent. */
export function grantMigrationLease(role: unknown): unknown {
  if (!isRecord(role) || role.kind !== 'Role') return role;
  const out = cloneJson(role);
  const rules = Array.isArray(out.rules) ? out.rules : [];
  if (!rules.some((r) => deepEqual(r, migrationLeaseRule()))) out.rules = [...rules, migrationLeaseRule()];
  return out;
}

/** The merge patch for one role, rendered from the role's rules as uproot expects them. */
export type PatchObjectChange = Extract<Change, { type: 'patch-object' }>;

export function migrationLeasePatch(
  component: LeaderLockingComponent,
  currentRules: readonly unknown[] = DEFAULT_ROLE_RULES[component],
): PatchObjectChange {
  const before = roleObject(component, currentRules);
  const after = grantMigrationLease(before) as JsonRecord;
  const file = `rbac/${LEADER_LOCKING_ROLE[component].replace(/:+/g, '-')}.yaml`;
  return {
    type: 'patch-object',
    description:
      `Allow the migration lease ${MIGRATION_LEASE_NAME} in Role ${LEADER_LOCKING_ROLE[component]} (kube-system). ` +
      'A merge patch replaces the whole rules list, so the patch carries the full list: the rules below are the ' +
      "role's default rules plus the migration rule; the engine re-reads the live Role and keeps every rule it has.",
    target: {
      api: 'downstream',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      namespace: 'kube-system',
      name: LEADER_LOCKING_ROLE[component],
    },
    patchType: 'merge',
    patch: { rules: after.rules },
    diff: unifiedDiff(file, stringify(before), stringify(after)),
  };
}

/** The undo: the rules without the migration rule. */
export function revokeMigrationLeasePatch(
  component: LeaderLockingComponent,
  currentRules: readonly unknown[] = DEFAULT_ROLE_RULES[component],
): PatchObjectChange {
  const grant = migrationLeasePatch(component, currentRules);
  const before = roleObject(component, currentRules);
  const after = grantMigrationLease(before);
  return {
    ...grant,
    description: `Remove the migration-lease rule from Role ${LEADER_LOCKING_ROLE[component]} (the role's other rules are kept).`,
    patch: { rules: [...currentRules] },
    diff: unifiedDiff(
      `rbac/${LEADER_LOCKING_ROLE[component].replace(/:+/g, '-')}.yaml`,
      stringify(after),
      stringify(before),
    ),
  };
}
