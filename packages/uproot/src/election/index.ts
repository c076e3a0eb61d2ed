/**
 * uproot/election: client-go's Lease leader election and Kubernetes Leader Migration (KEP-2436) for
 * TypeScript. Usable on its own by anyone writing controllers (it imports nothing of uproot's but the clock and
 * the error classes); uproot's sandbox managers are built on it, and uproot's core on its model.
 * See docs/election.md. Tools for testing and rehearsing with it (an in-memory lease store with faults,
 * virtual and skewed clocks, the lease watcher, the rehearsal): uproot/election/testing.
 */

// Time and chance (re-exported so users of uproot/election need no other import)
export { RealClock, systemRandom, type Clock, type Random } from '../clock/index.js';

// Errors (every one an UprootError, with a stable code)
export {
  ExitCode,
  InputError,
  UprootError,
  type ErrorLocation,
  type ErrorSource,
  type UprootErrorOptions,
} from '../errors/index.js';
export {
  ElectionConfigError,
  LeaseLockError,
  isConflict,
  isNotFound,
  leaseErrorReason,
  type LeaseErrorReason,
} from './errors.js';

// The lock port and its implementation over the Kubernetes API (an in-memory one: uproot/election/testing)
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

// What a manager of a version executes: its controllers' names, the LeaderMigrationConfiguration (the
// version's default, upstream's validation, the controller filter); uproot's core builds on these
export {
  ANY_COMPONENT,
  MIGRATION_LEASE_NAME,
  atLeast,
  compareVersions,
  controllerName,
  controllerNameInEra,
  controllersOf,
  defaultLeaderMigrationConfiguration,
  filterController,
  formatValidationFailure,
  logicalControllerName,
  logicalControllerOf,
  parseKubernetesVersion,
  serviceAccountTokenController,
  usesCanonicalNames,
  validateLeaderMigrationConfiguration,
  type ControllerLeader,
  type ControllerOwnership,
  type FieldError,
  type KubernetesVersion,
  type LeaderMigrationConfiguration,
  type LeaseObservation,
  type LogicalController,
  type ManagerComponent,
} from './model/index.js';

// client-node helpers: API clients sharing one keep-alive agent (the lease lock's transport), paged lists
export {
  closeKeepAliveAgents,
  listAll,
  makeKeepAliveApiClient,
  type KeepAliveClientOptions,
  type ListPage,
} from './kube-http/index.js';

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
export { parseGoBool, parseGoDuration } from './model/go-flag-values.js';
