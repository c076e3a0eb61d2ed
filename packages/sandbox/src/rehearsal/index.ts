/**
 * The rehearsal of the KCM → CCM migration: on election's managers over an in-memory lease store, or on the
 * sandbox's managers over HTTP against the in-tree cluster it starts; one procedure and driver for both.
 */
export {
  rehearseMigration,
  type RehearsalFigures,
  type RehearsalLeases,
  type RehearsalOptions,
  type RehearsalReport,
} from './rehearse-migration.js';
export { ledgerControllers } from './ledger-controllers.js';
export {
  rehearseSandboxMigration,
  type SandboxRehearsalOptions,
  type SandboxRehearsalReport,
} from './rehearse-sandbox.js';
export {
  rehearsalDocument,
  rehearsalVerdict,
  renderRehearsalText,
  type RehearsalVerdict,
} from './rehearsal-document.js';
export {
  startRehearsalCluster,
  REHEARSAL_CLUSTER_CIDR,
  SANDBOX_IDENTITIES,
  type ClusterNode,
  type ClusterService,
  type RehearsalCluster,
  type RehearsalClusterOptions,
} from './rehearsal-cluster.js';
export {
  ccmRbac,
  controllerServiceAccountRbac,
  CONTROLLER_SERVICE_ACCOUNT_NAMES,
  controlPlanePolicy,
  LEADER_LOCKING_ROLES,
  loadBalancerService,
  migrationLeaseRolePatch,
  nodeObject,
  type NodeSpec,
} from './cluster-objects.js';
