/**
 * What uproot knows about aws-cloud-controller-manager releases: every tagged release per minor, the one it
 * pins, the releases with known defects, and the behaviours that changed from a release on.
 */
export {
  CCM_IMAGE_REPOSITORY,
  CHART_DEFAULT_CCM_TAG,
  ccmImageTagFor,
  ccmTagMinor,
  ccmTagRelease,
  imageTag,
  pinnedCcmRelease,
  withImageTag,
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
} from './ccm-features.js';
