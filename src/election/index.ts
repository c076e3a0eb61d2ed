/**
 * uproot/election: client-go's Lease leader election and Kubernetes Leader Migration (KEP-2436) for
 * TypeScript. Usable on its own by anyone writing controllers; uproot's sandbox managers are built on it.
 * See docs/election.md.
 */

// Time and chance (re-exported so users of uproot/election need no other import)
export {
  RealClock,
  VirtualClock,
  seededRandom,
  systemRandom,
  type Clock,
  type Random,
} from '../clock/index.js';

// Errors
export {
  ElectionConfigError,
  LeaseLockError,
  isConflict,
  isNotFound,
  leaseErrorReason,
  type LeaseErrorReason,
} from './errors.js';

// The lock port and its two implementations
export {
  ApiLeaseLock,
  type ApiLeaseLockOptions,
  type LeaderElectionEvent,
  type LeaderElectionEventSink,
  type LeaseApi,
  type LeaseLock,
} from './lease-lock/lease-lock.js';
export {
  EMPTY_RECORD,
  formatMicroTime,
  leaseSpecToRecord,
  parseMicroTime,
  rawRecord,
  recordToLeaseSpec,
  type LeaderElectionRecord,
  type LeaseObject,
  type LeaseSpecWire,
} from './lease-lock/lease-record.js';
export { KubeLeaseLock, kubeLeaseApi, type KubeLeaseLockOptions } from './lease-lock/kube-lease-lock.js';
export {
  MemoryLeaseStore,
  type LeaseFault,
  type LeaseFaultInjector,
  type LeaseOperation,
  type LeaseRequest,
  type LeaseVerb,
} from './lease-lock/memory-lease-store.js';

// The elector
export {
  DEFAULT_TIMINGS,
  JITTER_FACTOR,
  electionTimingsError,
  validateElectionConfig,
  type ElectionLogger,
  type ElectionLogLevel,
  type ElectionTimings,
  type LeaderCallbacks,
  type LeaderElectionConfig,
} from './elector/election-config.js';
export { LeaderElector, type ElectorSnapshot } from './elector/leader-elector.js';

// Simulation helpers (clock skew, frozen processes)
export { SkewedClock, PausableClock, gatedLeaseLock } from './simulation/index.js';

// Leader migration runtime
export {
  planControllers,
  effectiveMigrationConfig,
  type ControllerDescriptor,
  type ControllerPlan,
  type ControllerPlanInput,
} from './leader-migration/controller-plan.js';
export {
  runControllerManager,
  type ControllerManager,
  type ControllerManagerOptions,
  type LeaseRole,
  type ManagerEvent,
  type ManagerExit,
} from './leader-migration/run-controller-manager.js';
export {
  controllerAliases,
  isControllerEnabled,
  resolveControllerAliases,
  validateControllerFlag,
} from './leader-migration/controller-selection.js';
export {
  managerOptionsFromFlags,
  parseManagerFlags,
  type ManagerFlags,
  type ManagerFlagsOptions,
  type ManagerFlagsResult,
} from './leader-migration/manager-flags.js';
export { parseGoBool, parseGoDuration } from './leader-migration/go-flag-values.js';

// Outside view and rehearsal
export {
  watchLeases,
  kubeLeaseWatcherApi,
  WATCHED_LEASES,
  type LeaseWatcher,
  type LeaseWatcherOptions,
} from './lease-watcher.js';
export {
  rehearseMigration,
  type RehearsalFigures,
  type RehearsalLeases,
  type RehearsalOptions,
  type RehearsalReport,
} from './rehearsal/rehearse-migration.js';
export { ledgerControllers } from './rehearsal/simulated-controllers.js';
