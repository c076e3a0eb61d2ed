/**
 * `@uproot/sandbox`: twins of Rancher-managed RKE2 and RKE clusters and of kubeadm clusters on AWS (a
 * Kubernetes API server and an AWS API emulator on loopback, simulated nodes and controller managers), the
 * scenarios they start from, the rehearsal and the demo (docs/sandbox.md). Built on uproot's public entries
 * only. uproot's CLI loads `@uproot/sandbox/cli` for `uproot demo` and `uproot sandbox`.
 */
export * from './twin/index.js';
export * from './scenarios/index.js';
export { startAwsEmulator, type AwsEmulator, type AwsEmulatorOptions } from './aws/index.js';
export { runDemo, type DemoOptions, type DemoDeps, type DemoResult } from './demo/run-demo.js';
export { runFleetDemo, type FleetDemoResult } from './demo/run-fleet-demo.js';
export {
  rehearseSandboxMigration,
  type SandboxRehearsalOptions,
  type SandboxRehearsalReport,
} from './rehearsal/rehearse-sandbox.js';
