/**
 * uproot/election/testing: tools for testing and rehearsing code built on uproot/election, kept out of the
 * library's own entry. An in-memory lease store with fault injection, virtual, skewed and pausable clocks, a
 * lock whose calls can be held back, and the outside view of the leases (polled like kubectl). The
 * leader-migration rehearsal, which judges ownership with uproot's core, is the sandbox's (src/sandbox/rehearsal).
 */
export { VirtualClock, seededRandom } from '../clock/index.js';
export {
  MemoryLeaseStore,
  type LeaseFault,
  type LeaseFaultInjector,
  type LeaseOperation,
  type LeaseRequest,
  type LeaseVerb,
} from './lease-lock/memory-lease-store.js';
export { SkewedClock, PausableClock, gatedLeaseLock } from './simulation/index.js';
export {
  watchLeases,
  kubeLeaseWatcherApi,
  WATCHED_LEASES,
  type LeaseWatcher,
  type LeaseWatcherOptions,
} from './lease-watcher.js';
