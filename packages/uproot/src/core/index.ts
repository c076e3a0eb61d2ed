/**
 * uproot/core: what uproot knows about the migration, as pure functions over plain data and no I/O, for
 * anyone building on that knowledge (uproot's sandbox is one: it imports uproot only through its public
 * entries). Kubernetes versions and what each removed, Leader Migration, controller ownership over time, the
 * aws-cloud-controller-manager (releases, defects, its chart), taints and tolerations, the cloud provider's
 * IAM actions, and how RKE and RKE2 resolve a cluster definition into component flags.
 *
 * The surface is checked by an API report (etc/uproot-core.api.md); see docs/decisions/0018-one-home-per-concept.md.
 */

// Kubernetes versions, and what a version removed
export {
  apiserverStartFailure,
  kcmStartFailure,
  kubeletStartFailure,
  unknownProviderForKcm,
  type StartFailure,
} from './kubernetes-version/index.js';
export {
  atLeast,
  compareVersions,
  minorString,
  nextMinor,
  parseKubernetesVersion,
  type KubernetesVersion,
} from './model/index.js';
// Which release a --target-version names for a distribution, and the hops to it (what plan refuses, and why)
export { resolveTarget, type VersionPlan } from './distros/shared/version-policy.js';
export type { Distro } from './model/index.js';

// Leader Migration (KEP-2436): what a manager executes (election's model) and how uproot plans and checks it
export {
  ANY_COMPONENT,
  LEADER_MIGRATION_GROUP,
  LEADER_MIGRATION_KIND,
  LEADER_MIGRATION_VERSIONS,
  MANAGER_COMPONENTS,
  MIGRATION_LEASE_NAME,
  MIGRATION_PHASES,
  checkLeaderMigrationConfiguration,
  controllerName,
  controllerNameInEra,
  controllersOf,
  decodeLeaderMigrationConfiguration,
  defaultConfigIsSafe,
  defaultLeaderMigrationConfiguration,
  filterController,
  formatValidationFailure,
  leaderMigrationToYaml,
  lintLeaderMigrationConfiguration,
  logicalControllerOf,
  migratableControllers,
  renderLeaderMigrationConfiguration,
  resolveControllers,
  serviceAccountTokenController,
  usesCanonicalNames,
  validateLeaderMigrationConfiguration,
  type CheckOptions,
  type ConfigIssue,
  type ControllerLeader,
  type ControllerOwnership,
  type ControllerResolution,
  type DecodedLeaderMigration,
  type DecodeOptions,
  type FieldError,
  type LeaderMigrationApiVersion,
  type LeaderMigrationConfiguration,
  type LeaderMigrationReport,
  type LintOptions,
  type LogicalController,
  type ManagerComponent,
  type MigrationPhase,
  type RenderOptions,
} from './leader-migration/index.js';

// Controller ownership over time: the ledger, the lease timeline, the inference and its comparison
export {
  INFERRED_CONTROLLERS,
  LEASE_NAMESPACE,
  NOT_CONFIGURED,
  leaseRecordSchema,
  analyzeLedger,
  compareOwnership,
  controllerRows,
  controllerRowsJson,
  controllerRowText,
  createLedger,
  findOwnershipOverlaps,
  gapsOf,
  inferOwnership,
  journalOwnership,
  leaseFor,
  leaseHolderTimeline,
  logicalControllerName,
  MIGRATED_CONTROLLERS,
  NOT_CONFIGURED_TEXT,
  NOT_YET_RUNNING_TEXT,
  overlapsOf,
  controllerFigures,
  ownershipReport,
  ownershipReportToJson,
  ownershipViews,
  totalLength,
  type ComponentPods,
  type ControllerOwnershipReport,
  type ControllerRow,
  type ControllerRowsJson,
  type ControllerState,
  type IdleControllerReport,
  type RunningControllerReport,
  type GateOutcome,
  type HolderSpan,
  type InferredTimeline,
  type JournalOwnershipInput,
  type LeaseObservation,
  type LeaseRecord,
  type Ledger,
  type LedgerAnalysis,
  type LedgerAnalysisOptions,
  type LedgerEntry,
  type ManagerPod,
  type ManagerProfile,
  type MigrationHistory,
  type OwnedSpan,
  type OwnershipDisagreement,
  type OwnershipEvidence,
  type OwnershipFindings,
  type OwnershipInference,
  type OwnershipInterval,
  type OwnershipOverlap,
  type OwnershipReport,
  type OwnershipViews,
  type OwnershipViewsInput,
  type ProfileBasis,
  type RollbackHistory,
  type StepHistory,
  type TimeSpan,
  type TimelineInput,
} from './ownership/index.js';

// The aws-cloud-controller-manager: releases, defects, features, its Helm chart, and the CCM as installed
export {
  CCM_CHART,
  CCM_CHART_DEFAULT_VALUES,
  CCM_CHART_NAME,
  CCM_CHART_REPO,
  CCM_CHART_VERSION,
  CCM_DEFECTS,
  CCM_FEATURES,
  CCM_IMAGE_REPOSITORY,
  CCM_RELEASES,
  ccmChartDefaultValues,
  ccmImageTagFor,
  ccmRelease,
  ccmTagRelease,
  featureSince,
  fromChartValues,
  hasDefect,
  hasFeature,
  helmChartsInManifest,
  knownDefects,
  pinnedCcmRelease,
  renderCcmValues,
  type AffectedMinor,
  type CcmDefect,
  type CcmDeployment,
  type CcmFeature,
  type CcmRelease,
  type CcmValuesOptions,
  type ControlPlaneFlavor,
  type DefectCondition,
  type DefectFinding,
  type FeatureSince,
} from './ccm/index.js';

// Taints and tolerations
export {
  ROLE_TAINTS,
  formatTaint,
  formatToleration,
  isTolerated,
  toleratesTaint,
  tolerationFor,
  type RoleTaintDistro,
} from './scheduling/index.js';
export type { Taint, Toleration } from './model/index.js';

// The AWS cloud provider's IAM actions
export {
  CCM_VERSIONED_ACTIONS,
  CONTROL_PLANE_ACTIONS,
  CONTROL_PLANE_RECOMMENDED_ACTIONS,
  NODE_ACTIONS,
  NODE_EC2_ACTIONS,
  NODE_ECR_ACTIONS,
  ccmVersionedActions,
  type VersionedCcmAction,
} from './iam/index.js';

// Component flags, and how RKE and RKE2 resolve a cluster definition into them
export { flagName, flagValue, lastFlagValue, setFlag, withoutFlags } from './model/index.js';
export {
  MANAGEMENT_CLUSTER,
  extraArgs,
  managementView,
  rkeConfigOf,
  rkeEffectiveSettings,
  withManagementView,
  type RkeEffectiveSettings,
  type RkeService,
} from './distros/rke/index.js';
export {
  argList,
  rke2ApiserverGetsCloudProvider,
  rke2ComponentProvider,
  rke2EffectiveConfig,
  rke2EffectiveSettings,
  rke2NodeNameUsesImdsV2,
  rke2RunsBuiltInCloudController,
  type CloudProviderSetting,
  type Labels,
  type Rke2EffectiveSettings,
} from './distros/rke2/index.js';
export type { JsonRecord } from './model/index.js';

// The releases uproot knows per distribution (the twins' releases too)
export {
  KNOWN_RELEASES,
  judgeRelease,
  newestRelease,
  type ReleaseTable,
  type ReleaseVerdict,
} from './distros/shared/releases.js';

// The AWS cloud config (--cloud-config): parsed, rendered, and as RKE's cloud_provider carries it
export {
  configuredClusterId,
  parseAwsCloudConfig,
  renderAwsCloudConfig,
  rkeAwsCloudProviderConfig,
  rkeAwsCloudProviderYaml,
  type AwsCloudConfig,
} from './cloud-config/index.js';

// Container image references, distribution/reference's grammar: the one parser, for uproot and its sandbox
export {
  formatImageReference,
  imageName,
  imageTag,
  normalizeImageReference,
  parseImageReference,
  sameRepository,
  tryParseImageReference,
  withImageTag,
  withTag,
  type ImageReference,
  type ImageReferenceParse,
  type ImageReferenceProblem,
} from './model/index.js';
// Container images; the cluster snapshot's shapes the facts above read
export { isEcrImage } from './checks/index.js';
export type { HelmChartFacts, PolicyRule } from './model/index.js';
// The plan those facts are judged against
export type { GateType, MigrationPlan, StepId } from './model/index.js';
export { STEP_IDS, isStepId } from './model/index.js';

// `uproot snapshot`'s record of a live cluster and its AWS account, which the sandbox replays as a twin (issue 27)
export {
  SNAPSHOT_FORMAT_VERSION,
  clusterSnapshotSchema,
  type ClusterSnapshot,
  type ClusterSnapshotInput,
  type SnapshotAws,
  type SnapshotInstance,
  type SnapshotNode,
  type SnapshotService,
} from './snapshot/index.js';
