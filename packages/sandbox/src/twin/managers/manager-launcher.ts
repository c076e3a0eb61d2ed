import type { KubernetesVersion } from 'uproot/core';
import type { NodeRole } from '../layout/cluster-layout.js';

/**
 * How the twin starts a controller manager "container". The twin decides when one runs and with which
 * flags (from its distribution's configuration); the launcher turns that into a simulated process
 * (src/sandbox/managers' startSimulatedManager in a real twin).
 */

export type ManagerComponent = 'kube-controller-manager' | 'cloud-controller-manager';

export interface ManagerLaunch {
  readonly component: ManagerComponent;
  readonly nodeName: string;
  readonly instanceId: string;
  readonly role: NodeRole;
  /**
   * Set when the container runs on the pod network (`hostNetwork` false): the loopback address its
   * connections come from (src/sandbox/aws/imds/imds-network.ts), one hop further from IMDS than the node.
   */
  readonly podNetworkAddress?: string;
  /** Every flag the container was started with (command after the binary, then args). */
  readonly args: readonly string[];
  readonly kubernetesVersion: KubernetesVersion;
  /** Reads a file as the container sees it (hostPath mounts mapped to the node's folder). */
  readFile(path: string): Promise<string>;
  /** Lines the process logs (the twin's log, like `crictl logs`). */
  log(line: string): void;
}

export interface ManagerExit {
  readonly code: number;
  readonly reason: string;
}

export interface ManagerProcess {
  readonly identity: string;
  readonly exited: Promise<ManagerExit>;
  readonly running: boolean;
  stop(): Promise<void>;
}

export type ManagerLauncher = (launch: ManagerLaunch) => Promise<ManagerProcess>;
