/**
 * uproot as a library: the same calls the CLI makes (docs/library.md). Each takes plain options and returns
 * a typed result; every I/O dependency has a real default (kubeconfig, AWS SDK, the real clock) and can be
 * injected. Errors are `UprootError`s with a stable `code` (docs/errors.md) and an `exitCode`.
 *
 * The surface is checked by an API report (etc/uproot.api.md, `npm run api:check`): a change to it is a
 * deliberate change to that file.
 */

// The toolkit
export { preflight, type PreflightOptions, type PreflightRun } from './toolkit/preflight.js';
export { plan, type PlanOptions, type PlanRunResult } from './toolkit/plan.js';
export {
  migrate,
  type MigrateDeps,
  type MigrateOptions,
  type MigrateOutcome,
  type MigrateResult,
  type PreflightVerdict,
} from './toolkit/migrate.js';
export {
  rollback,
  type RollbackDeps,
  type RollbackOptions,
  type RollbackOutcome,
  type RollbackRunResult,
} from './toolkit/rollback.js';
export {
  verify,
  VERIFY_SCHEMA_VERSION,
  type CheckStatus,
  type InstanceFact,
  type InstanceReader,
  type VerifyCheck,
  type VerifyDeps,
  type VerifyOptions,
  type VerifyReport,
} from './toolkit/verify.js';
export {
  status,
  watchStatus,
  STATUS_SCHEMA_VERSION,
  type LeaseHolder,
  type StatusDeps,
  type StatusOptions,
  type StatusReport,
  type StatusStep,
} from './toolkit/status.js';
export { report, type ReportFormat, type ReportOptions, type ReportResult } from './toolkit/report.js';

// The fleet: every downstream cluster of one Rancher (docs/fleet.md)
export {
  fleetPreflight,
  fleetPlan,
  fleetMigrate,
  fleetMigrateAsJobs,
  fleetStatus,
  watchFleetStatus,
  fleetReport,
  fleetManifestsOf,
  FLEET_PREFLIGHT_SCHEMA_VERSION,
  FLEET_MIGRATE_SCHEMA_VERSION,
  FLEET_STATUS_SCHEMA_VERSION,
  type FleetDeps,
  type FleetTargets,
  type RancherAccess,
  type FleetPreflightOptions,
  type FleetPreflightResult,
  type FleetPreflightRow,
  type FleetPlanOptions,
  type FleetPlanResult,
  type FleetMigrateDeps,
  type FleetMigrateOptions,
  type FleetMigrateResult,
  type FleetMigrateRow,
  type FleetJobOptions,
  type FleetStatusOptions,
  type FleetStatusReport,
  type FleetReportOptions,
  type FleetReportResult,
  type FleetManifestsOptions,
} from './toolkit/fleet/index.js';
export type {
  ClusterOutcome,
  ClusterVerdict,
  FleetCluster,
  FleetStatusRow,
  FleetReportModel,
  FleetReportRow,
  FleetReportRowInput,
  FleetPlanRow,
  FleetJobSettings,
  JobCluster,
  JobState,
  MigrationProgress,
  Pacing,
} from './core/fleet/index.js';
export type { RancherClusterRef } from './core/distros/rke2/cluster-ref.js';

// What the calls share: where they run, which cluster, how changes reach it
export type { TargetFlags } from './toolkit/targets.js';
export type { ExecutionFlags, RunHost } from './toolkit/session/run-settings.js';
export type { Clusters, ClusterTargets, Connect } from './toolkit/session/cluster-access.js';
export type { RunDeps } from './toolkit/session/locked-run.js';
export type { LocalProcesses } from './engine/lock/holder-process.js';
export type {
  KubeObject,
  ListSelector,
  ObjectKey,
  ObjectStore,
  PatchType,
  CommandRunner,
  CommandSpec,
  CommandResult,
} from './engine/ports.js';

// The documents they return
export type {
  Change,
  Distro,
  Gate,
  ManualAction,
  MigrationPlan,
  PlanStep,
  StepId,
} from './core/model/plan-types.js';
export type { PreflightReport } from './core/checks/index.js';
export type { CheckId } from './core/checks/check-result.js';
export type { PreflightSnapshot } from './core/model/snapshot.js';
export type {
  GateResult,
  Journal,
  LeaseRecord,
  StepRecord,
  StepState,
} from './engine/journal/journal-schema.js';
export type { JournalPhase } from './engine/journal/journal-transitions.js';
export type {
  ControllerOwnershipReport,
  ControllerRow,
  OwnershipInference,
  OwnershipOverlap,
  OwnershipReport,
} from './core/ownership/index.js';
export type { RunResult } from './engine/run-plan.js';
export type { RollbackResult } from './engine/rollback/run-rollback.js';
export type { EngineEvent } from './engine/events.js';
export type { NextAction } from './engine/next-action.js';

// Rendering a journal as a report (what `report` does), for a model built with other ownership (a ledger)
export {
  buildReportModel,
  renderReportHtml,
  renderReportMarkdown,
  type ReportModel,
} from './report/index.js';
// The local copy of the journal under the state directory (.uproot/<cluster>/journal.json)
export { JournalMirror } from './adapters/files/journal-mirror.js';
// The real CommandRunner (no shell, a deadline on the clock, bounded and redacted output), to wrap or reuse
export { ProcessRunner } from './adapters/process/run-command.js';

// Errors and exit codes
export {
  AbortError,
  AccessError,
  ExitCode,
  GateError,
  InputError,
  InternalError,
  LockError,
  UprootError,
  fieldPath,
  formatError,
  valueAt,
  type ErrorLocation,
  type ErrorSource,
  type UprootErrorOptions,
} from './errors/index.js';

// Time: everything that waits takes a Clock (real, or virtual: time moves only when told to)
export {
  FollowedClock,
  RealClock,
  VirtualClock,
  seededRandom,
  systemRandom,
  type Clock,
  type ClockSample,
  type FollowedClockOptions,
  type PollTimer,
  type Random,
} from './clock/index.js';
// Another process's clock (a sped-up twin's), named by UPROOT_CLOCK_URL (decision 0034)
export { CLOCK_URL_VARIABLE, clockFromEnvironment } from './toolkit/followed-clock.js';

export { VERSION } from './version.js';
