/**
 * Controller ownership over time, uproot's core promise, in one place (pure): the ledger's ground truth, the
 * lease timeline seen from outside (election's LeaseObservations, the journal's lease records), the
 * configuration each manager ran in each phase of the plan and the profile of each lease holder, the
 * inference that finds overlaps, and their comparison.
 */
export { gapsOf, overlapsOf, totalLength, type OwnedSpan, type TimeSpan } from './intervals.js';
export {
  controllerFigures,
  ownershipReport,
  ownershipReportToJson,
  type ControllerOwnershipReport,
  type ControllerState,
  type IdleControllerReport,
  type OwnershipInterval,
  type RunningControllerReport,
  type OwnershipReport,
} from './ownership-report.js';
export {
  controllerRows,
  controllerRowsJson,
  controllerRowText,
  unwatchedGapText,
  isMigratedController,
  MIGRATED_CONTROLLERS,
  orderRows,
  NOT_CONFIGURED_TEXT,
  NOT_YET_RUNNING_TEXT,
  type ControllerRow,
  type ControllerRowsJson,
} from './controller-rows.js';
export {
  analyzeLedger,
  createLedger,
  logicalControllerName,
  NOT_CONFIGURED,
  type Ledger,
  type LedgerAnalysis,
  type LedgerAnalysisOptions,
  type LedgerEntry,
} from './ledger.js';
export {
  inferOwnership,
  INFERRED_CONTROLLERS,
  leaseFor,
  leaseHolderTimeline,
  type HolderSpan,
  type InferredTimeline,
  type ManagerProfile,
  type TimelineInput,
} from './lease-timeline.js';
// One look at a lease from outside: election's type (its lease watcher records them), read here.
export type { LeaseObservation } from '../../election/model/index.js';
export {
  LEASE_FRESHNESS_GRACE_SECONDS,
  LEASE_NAMESPACE,
  appendLeaseLooks,
  lastRenewalOf,
  leaseRecordSchema,
  type LeaseRecord,
} from './lease-record.js';
export type { GateOutcome, MigrationHistory, RollbackHistory, StepHistory } from './migration-history.js';
export {
  configPhases,
  migrationLeaseOf,
  phasesAt,
  plannedConfigFiles,
  plannedConfigs,
  plannedVersions,
  type Candidate,
  type ConfigPhase,
  type PlannedConfig,
} from './config-phases.js';
export {
  hostOfIdentity,
  namesHost,
  identityProfiles,
  imageVersion,
  mostOwningProfile,
  podCandidates,
  podOnHost,
  POD_START_TOLERANCE_MS,
  safeDefaultProfile,
  type ComponentPods,
  type HolderFacts,
  type ManagerPod,
  type ProfileBasis,
  type ProfileEvidence,
  type ResolvedProfile,
} from './holder-profiles.js';
export {
  holdersOf,
  inferProfiledOverlaps,
  inferProfiledOwnership,
  observationsFromRecords,
  type InferredOverlap,
  type OwnershipEvidence,
  type ProfiledInference,
} from './profiled-inference.js';
export {
  findOwnershipOverlaps,
  leaseOverlapInference,
  ownershipInference,
  profiledOwnershipInference,
  type OwnershipFindings,
  type OwnershipInference,
  type OwnershipOverlap,
} from './overlaps.js';
export { journalOwnership, plannedNotConfigured, type JournalOwnershipInput } from './journal-ownership.js';
export { compareOwnership, type OwnershipDisagreement } from './compare.js';
export { ownershipViews, type OwnershipViews, type OwnershipViewsInput } from './views.js';
export {
  componentBounds,
  controllerBound,
  DEFAULT_PROMISE_BOUND,
  PROCESS_START_ALLOWANCE_SECONDS,
  promiseBoundOf,
  widerBound,
  type PromiseBound,
} from './promise-bound.js';
export { handoverObservations } from './handover-observations.js';
export {
  handoverGaps,
  promiseRows,
  promiseBreaches,
  promiseFigures,
  type ControllerPromise,
  type PromiseBreach,
  type PromiseFigures,
} from './promise-figures.js';
