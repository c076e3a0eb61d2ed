/**
 * What uproot knows about the aws-cloud-controller-manager, in one place: every tagged release per minor, the
 * one it pins, the releases with known defects, the behaviours that changed from a release on; the Helm
 * chart (its values.yaml defaults, the values the seeds install it with) and the CCM as installed or planned
 * in a cluster (a DaemonSet, a static pod, a HelmChart) and the releases in play.
 */
export {
  CCM_IMAGE_REPOSITORY,
  CHART_DEFAULT_CCM_TAG,
  ccmImageTagFor,
  ccmTagMinor,
  ccmTagRelease,
  pinnedCcmRelease,
} from './ccm-image.js';
export {
  CCM_RELEASES,
  CCM_RELEASES_AS_OF,
  FIRST_CCM_MINOR,
  NEWEST_CCM_MINOR,
  ccmRelease,
  isTaggedRelease,
  releasesOf,
  type CcmRelease,
} from './ccm-releases.js';
export {
  CCM_DEFECTS,
  firstFixedRelease,
  hasDefect,
  knownDefects,
  routeControllerDefect,
  routeControllerWorks,
  type AffectedMinor,
  type CcmDefect,
  type DefectCondition,
  type DefectFinding,
} from './known-defects.js';
export {
  CCM_FEATURES,
  featureSince,
  hasFeature,
  implementsNodeIpam,
  MISSING_TOPOLOGY_PERMISSION_BLOCKS_INIT,
  type CcmFeature,
  type FeatureSince,
} from './ccm-features.js';
export {
  CCM_CHART,
  CCM_CHART_DEFAULT_VALUES,
  CCM_CHART_NAME,
  CCM_CHART_REPO,
  CCM_CHART_VERSION,
  ccmChartDefaultValues,
} from './chart-defaults.js';
// withImageTag / withoutLeaderMigration (values transforms) are imported from chart-values.ts by the planners:
// this index's withImageTag is the image reference's.
export {
  CONTROL_PLANE_LABEL,
  LEADER_MIGRATION_CHART_ARG,
  ensureCcmValues,
  helmChartYaml,
  helmInstallCommand,
  renderCcmValues,
  renderHelmChart,
  seedClusterRoleRules,
  valuesYaml,
  type CcmValuesOptions,
  type ControlPlaneFlavor,
} from './chart-values.js';
export {
  CCM_NAMESPACE,
  CCM_SERVICE_ACCOUNT,
  CHART_DEFAULTS,
  findCcmDeployments,
  fromChartValues,
  helmChartsInManifest,
  isCcmDaemonSet,
  recommendedPlacement,
  type CcmDeployment,
} from './installed-chart.js';
export { ccmsInPlay, clusterUsesCloudRoutes, type CcmCluster, type CcmInPlay } from './ccm-in-play.js';
