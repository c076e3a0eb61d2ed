/**
 * Runs every check over a snapshot. Pure and synchronous: the snapshot (with its IAM evaluation) already
 * holds everything, so the same snapshot always gives the same results.
 */
import { CHECK_IDS, type CheckId, type CheckResult, type CheckStatus } from './check-result.js';
import { buildContext, type Check, type CheckContext, type CheckOptions } from './check-context.js';
import type { PreflightSnapshot } from '../model/snapshot.js';
import { checkKubernetesVersion } from './kubernetes-version.js';
import { checkUpgradePath } from './upgrade-path.js';
import { checkVersionSkew } from './version-skew.js';
import { checkCloudProviderMode } from './cloud-provider-mode.js';
import { checkLeaderElection } from './leader-election.js';
import { checkMigrationLeaseRbac } from './migration-lease-rbac.js';
import { checkNodeNames } from './node-names.js';
import { checkProviderIds } from './provider-ids.js';
import { checkClusterTags } from './cluster-tags.js';
import { checkLbSubnets } from './lb-subnets.js';
import { checkIamControlPlane, checkIamNodes } from './iam-permissions.js';
import { checkControlPlaneScheduling } from './control-plane-scheduling.js';
import { checkCcmInstall } from './ccm-install.js';
import { checkCcmRelease } from './ccm-release.js';
import { checkLbType } from './lb-type.js';
import { checkEbsStorage } from './ebs-storage.js';
import { checkEcrCredentials } from './ecr-credentials.js';
import { checkNodeNameSettings } from './node-name-settings.js';
import { checkInTreeAfterRemoval } from './in-tree-after-removal.js';
import { checkInstanceMetadata } from './instance-metadata.js';

export const CHECKS: Readonly<Record<CheckId, Check>> = {
  'kubernetes-version': checkKubernetesVersion,
  'version-skew': checkVersionSkew,
  'upgrade-path': checkUpgradePath,
  'cloud-provider-mode': checkCloudProviderMode,
  'leader-election': checkLeaderElection,
  'migration-lease-rbac': checkMigrationLeaseRbac,
  'node-names': checkNodeNames,
  'provider-ids': checkProviderIds,
  'cluster-tags': checkClusterTags,
  'lb-subnets': checkLbSubnets,
  'iam-control-plane': checkIamControlPlane,
  'iam-nodes': checkIamNodes,
  'control-plane-scheduling': checkControlPlaneScheduling,
  'ccm-install': checkCcmInstall,
  'ccm-release': checkCcmRelease,
  'lb-type': checkLbType,
  'ebs-storage': checkEbsStorage,
  'ecr-credentials': checkEcrCredentials,
  'node-name-settings': checkNodeNameSettings,
  'in-tree-after-removal': checkInTreeAfterRemoval,
  'instance-metadata': checkInstanceMetadata,
};

/** Every check, in the documented order (CHECK_IDS). */
export function runChecks(snapshot: PreflightSnapshot, options: CheckOptions = {}): CheckResult[] {
  return runChecksIn(buildContext(snapshot, options));
}

/** The same, over a context already built (the caller also wants its profile). */
export function runChecksIn(ctx: CheckContext): CheckResult[] {
  return CHECK_IDS.map((id) => CHECKS[id](ctx));
}

export type Outcome = Exclude<CheckStatus, 'skip'>;

/** fail if any check fails, else warn if any warns, else pass (skips do not fail a run). */
export function outcomeOf(results: readonly CheckResult[]): Outcome {
  if (results.some((r) => r.status === 'fail')) return 'fail';
  if (results.some((r) => r.status === 'warn')) return 'warn';
  return 'pass';
}

export function summarize(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const out: Record<CheckStatus, number> = { fail: 0, warn: 0, skip: 0, pass: 0 };
  for (const r of results) out[r.status]++;
  return out;
}
