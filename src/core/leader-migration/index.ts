/** Leader Migration (KEP-2436) semantics: pure functions over plain data. */
export * from './types.js';
export {
  controllersOf,
  controllerName,
  controllerNameInEra,
  logicalControllerOf,
  migratableControllers,
  serviceAccountTokenController,
  usesCanonicalNames,
  type LogicalController,
} from './controller-names.js';
export {
  decodeLeaderMigrationConfiguration,
  type ConfigIssue,
  type DecodedLeaderMigration,
  type DecodeOptions,
} from './decode.js';
export {
  validateLeaderMigrationConfiguration,
  formatValidationFailure,
  type FieldError,
} from './validate.js';
export { defaultLeaderMigrationConfiguration } from './default-config.js';
export { filterController, resolveControllers, type ControllerResolution } from './filter.js';
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
// CCM release knowledge lives in src/core/ccm; re-exported here so code written against the old home compiles.
export { ccmImageTagFor, ccmTagMinor, CCM_IMAGE_REPOSITORY, CHART_DEFAULT_CCM_TAG } from '../ccm/index.js';
