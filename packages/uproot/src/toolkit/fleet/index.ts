/** The fleet commands as library calls: every downstream cluster of one Rancher. */
export {
  fleetPreflight,
  FLEET_PREFLIGHT_SCHEMA_VERSION,
  type FleetPreflightOptions,
  type FleetPreflightResult,
  type FleetPreflightRow,
} from './fleet-preflight.js';
export { fleetPlan, type FleetPlanOptions, type FleetPlanResult } from './fleet-plan.js';
export {
  fleetMigrate,
  FLEET_MIGRATE_SCHEMA_VERSION,
  type FleetMigrateDeps,
  type FleetMigrateOptions,
  type FleetMigrateResult,
  type FleetMigrateRow,
} from './fleet-migrate.js';
export { fleetMigrateAsJobs, type FleetJobOptions } from './fleet-jobs.js';
export {
  fleetStatus,
  watchFleetStatus,
  FLEET_STATUS_SCHEMA_VERSION,
  type FleetStatusOptions,
  type FleetStatusReport,
} from './fleet-status.js';
export { fleetReport, type FleetReportOptions, type FleetReportResult } from './fleet-report.js';
export { fleetManifestsOf, type FleetManifestsOptions } from './fleet-manifests.js';
export type { FleetDeps, FleetTargets, RancherAccess } from './fleet-session.js';
export {
  fleetSnapshot,
  FLEET_SNAPSHOT_SCHEMA_VERSION,
  type FleetSnapshotOptions,
  type FleetSnapshotResult,
  type FleetSnapshotRow,
} from './fleet-snapshot.js';
