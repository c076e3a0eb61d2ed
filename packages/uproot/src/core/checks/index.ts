/** Preflight checks: pure functions over a plain-data snapshot of a cluster and its AWS account. */
export * from './check-result.js';
export { runChecks, runChecksIn, outcomeOf, summarize, CHECKS, type Outcome } from './run-checks.js';
export {
  buildContext,
  type CheckContext,
  type CheckOptions,
  type NodeInstance,
  type Check,
} from './check-context.js';
export { applyFix, isMechanical } from './apply-fix.js';
export { renderPreflightText } from './render-text.js';
export {
  preflightReportSchema,
  preflightJsonSchema,
  requestStatsSchema,
  PREFLIGHT_SCHEMA_VERSION,
  type PreflightReport,
  type RequestStats,
} from './preflight-report.js';
export {
  migrationLeaseReviewRequests,
  MIGRATION_LEASE,
  MIGRATION_LEASE_RULE,
  KCM_IDENTITY,
  CCM_IDENTITY,
} from './migration-lease-rbac.js';
export { isControlPlaneNode, type Distro } from './facts/cluster-profile.js';
export { parseProviderId, nodeNameLookup, canonicalProviderId, isInstanceId } from './facts/provider-id.js';
export { toleratesTaint, placementOnNode } from './facts/scheduling.js';
// The CCM as installed is the CCM's knowledge (src/core/ccm); re-exported for the adapters that read it.
export { CCM_NAMESPACE, CCM_SERVICE_ACCOUNT, isCcmDaemonSet } from '../ccm/index.js';
export { EBS_CSI_DRIVER } from './ebs-storage.js';
export { isEcrImage } from './ecr-credentials.js';
export { isCcmLoadBalancer } from './lb-subnets.js';
export { withIamEvaluation } from './evaluate-snapshot.js';
export { stepFixing } from './remedied-by-plan.js';
