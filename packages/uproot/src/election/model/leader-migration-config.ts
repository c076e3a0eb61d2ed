/** The two managers that take part in leader migration, as they name themselves to the migrator. */
export type ManagerComponent = 'kube-controller-manager' | 'cloud-controller-manager';
export const MANAGER_COMPONENTS: readonly ManagerComponent[] = [
  'kube-controller-manager',
  'cloud-controller-manager',
];

/** `"*"` means any manager that has migration enabled. */
export const ANY_COMPONENT = '*';

export const LEADER_MIGRATION_GROUP = 'controllermanager.config.k8s.io';
export const LEADER_MIGRATION_KIND = 'LeaderMigrationConfiguration';
export const LEADER_MIGRATION_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;
export type LeaderMigrationApiVersion = (typeof LEADER_MIGRATION_VERSIONS)[number];

/** The default migration Lease (kube-system), used by the default configuration and by the seeds' RBAC patches. */
export const MIGRATION_LEASE_NAME = 'cloud-provider-extraction-migration';

export interface ControllerLeader {
  readonly name: string;
  /** A manager name or `"*"`; not validated upstream beyond being non-empty. */
  readonly component: string;
}

/** The internal (version-independent) form, as upstream converts every version to. */
export interface LeaderMigrationConfiguration {
  readonly leaderName: string;
  /** `leases` or `endpoints`; v1 files have no such field and convert to `leases`. */
  readonly resourceLock: string;
  readonly controllerLeaders: readonly ControllerLeader[];
}

/** How a manager treats one controller under a configuration (upstream FilterFunc). */
export type ControllerOwnership = 'migrated' | 'unowned' | 'non-migrated';
