/**
 * Sandbox twins of RKE2 (under Rancher), RKE and kubeadm clusters on AWS: the library entry (`startTwin`)
 * that tests and `uproot demo` use in-process, and what the `uproot sandbox` commands build on.
 */
export {
  startTwin,
  ledgerAnalysis,
  ledgerReport,
  type StartTwinOptions,
  type Twin,
  type LedgerReport,
} from './twin.js';
export { serveTwin, exposeTwin, removeTwinFiles, type ServeTwinOptions } from './serve-twin.js';
export type { TwinStatus } from './twin-status.js';
export type { FaultsReport, FaultCount, FaultName } from './faults/twin-faults.js';
export type { RkeUpResult } from './rke/rke-up.js';
export type {
  ManagerLauncher,
  ManagerLaunch,
  ManagerProcess,
  ManagerExit,
} from './managers/manager-launcher.js';
export {
  callControl,
  CLOCK_PATH,
  startControlServer,
  type ControlHandlers,
  type ControlServer,
} from './control/control-server.js';
export {
  readSandboxState,
  writeSandboxState,
  sandboxStateSchema,
  SANDBOX_STATE_FILE,
  type SandboxState,
  type SandboxNode,
} from './control/sandbox-state.js';
export type { TwinIdentities } from './boot/identities.js';
export type { ClusterLayout, InstanceLayout } from './layout/cluster-layout.js';
export { renderCcmChart, ccmChartDefaults, CCM_CHART_NAME, CCM_CHART_VERSION } from './helm/ccm-chart.js';
export { canSchedule, canKeepRunning } from './scheduling/placement.js';
export { toleratesTaint } from './scheduling/taints.js';
export { installKubelet, INSTALLED_KUBELET } from './kubeadm/installed-kubelet.js';
