/** The over-HTTP rehearsal of the KCM → CCM migration, and the in-tree cluster it runs on. */
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
