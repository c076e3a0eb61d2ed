/**
 * Leader Migration (KEP-2436) as uproot plans and judges it: pure functions over plain data. What a manager
 * executes (the configuration's types, controller names per version, the default, upstream's validation and
 * the filter) is election's (src/election/model) and re-exported here; uproot adds decoding a file, rendering
 * one per phase, linting and checking.
 */
export {
  ANY_COMPONENT,
  LEADER_MIGRATION_GROUP,
  LEADER_MIGRATION_KIND,
  LEADER_MIGRATION_VERSIONS,
  MANAGER_COMPONENTS,
  MIGRATION_LEASE_NAME,
  controllerName,
  controllerNameInEra,
  controllersOf,
  defaultLeaderMigrationConfiguration,
  filterController,
  formatValidationFailure,
  logicalControllerName,
  logicalControllerOf,
  migratableControllers,
  resolveControllers,
  serviceAccountTokenController,
  usesCanonicalNames,
  validateLeaderMigrationConfiguration,
  type ControllerLeader,
  type ControllerOwnership,
  type ControllerResolution,
  type FieldError,
  type LeaderMigrationApiVersion,
  type LeaderMigrationConfiguration,
  type LogicalController,
  type ManagerComponent,
} from '../../election/model/index.js';
export {
  decodeLeaderMigrationConfiguration,
  type ConfigIssue,
  type DecodedLeaderMigration,
  type DecodeOptions,
} from './decode.js';
export {
  renderLeaderMigrationConfiguration,
  leaderMigrationToYaml,
  defaultConfigIsSafe,
  MIGRATION_PHASES,
  type MigrationPhase,
  type RenderOptions,
} from './render.js';
export { lintLeaderMigrationConfiguration, type LintOptions } from './lint.js';
export { checkLeaderMigrationConfiguration, type LeaderMigrationReport, type CheckOptions } from './check.js';
