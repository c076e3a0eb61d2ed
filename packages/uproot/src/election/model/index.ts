/**
 * What election computes with, as plain data and pure functions: Kubernetes versions, the controller names a
 * manager of a version keys its controllers by, the LeaderMigrationConfiguration a manager executes (its
 * types, the version's default, upstream's validation and the controller filter), and the outside view of a
 * lease. It imports nothing but src/errors; src/core builds on it (docs/decisions/0018-one-home-per-concept.md).
 */
export {
  atLeast,
  compareVersions,
  minorString,
  nextMinor,
  parseKubernetesVersion,
  type KubernetesVersion,
} from './kubernetes-version.js';
export {
  ANY_COMPONENT,
  LEADER_MIGRATION_GROUP,
  LEADER_MIGRATION_KIND,
  LEADER_MIGRATION_VERSIONS,
  MANAGER_COMPONENTS,
  MIGRATION_LEASE_NAME,
  type ControllerLeader,
  type ControllerOwnership,
  type LeaderMigrationApiVersion,
  type LeaderMigrationConfiguration,
  type ManagerComponent,
} from './leader-migration-config.js';
export {
  controllerName,
  controllerNameInEra,
  controllersOf,
  logicalControllerName,
  logicalControllerOf,
  migratableControllers,
  serviceAccountTokenController,
  usesCanonicalNames,
  type LogicalController,
} from './controller-names.js';
export { filterController, resolveControllers, type ControllerResolution } from './controller-filter.js';
export { defaultLeaderMigrationConfiguration } from './default-config.js';
export {
  formatValidationFailure,
  validateLeaderMigrationConfiguration,
  type FieldError,
} from './validate-config.js';
export type { LeaseObservation } from './lease-observation.js';
export { parseGoBool, parseGoDuration } from './go-flag-values.js';
