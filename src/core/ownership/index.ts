/** Controller ownership over time: the ledger's ground truth and the lease timeline seen from outside. Pure. */
export { gapsOf, overlapsOf, totalLength, type OwnedSpan, type TimeSpan } from './intervals.js';
export {
  ownershipReport,
  ownershipReportToJson,
  type ControllerOwnership,
  type OwnershipInterval,
  type OwnershipReport,
} from './ownership-report.js';
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
  type LeaseObservation,
  type ManagerProfile,
  type TimelineInput,
} from './lease-timeline.js';
export { compareOwnership, type OwnershipDisagreement } from './compare.js';
