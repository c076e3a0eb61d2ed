import type { Taint } from '../scheduling/taints.js';

/**
 * What a node runs, as its distribution configured it: the kubelet's settings and, on control-plane nodes,
 * the static pods. Distro drivers (RKE2 planner, `rke up`, kubeadm manifests) compute it; the node agent
 * compares the new value with the running one and restarts what changed, like the real supervisors.
 */

export type KubeletCloudProvider = 'aws' | 'external' | '';

export interface KubeletConfig {
  /** `--cloud-provider`: `aws` is the in-tree provider, `external` waits for a CCM, empty is none. */
  readonly cloudProvider: KubeletCloudProvider;
  /** `--hostname-override` (RKE2 `node-name`, RKE `hostname_override`, kubeadm `--hostname-override`). */
  readonly hostnameOverride: string | undefined;
  /** The flags as the distribution renders them, for display and gates. */
  readonly args: readonly string[];
  /** The kubelet's reported version (`status.nodeInfo.kubeletVersion`). */
  readonly version: string;
}

export type StaticPodComponent = 'kube-apiserver' | 'kube-controller-manager' | 'cloud-controller-manager';

export interface HostPathVolume {
  readonly name: string;
  /** The path on the node (`/etc/leadermigration.conf`); the agent maps it into the node's folder. */
  readonly hostPath: string;
  readonly mountPath: string;
  readonly type?: string;
}

export interface StaticPodConfig {
  readonly component: StaticPodComponent;
  readonly image: string;
  /** The container's `command` (binary and flags, as RKE2 and kubeadm write them). */
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly volumes: readonly HostPathVolume[];
  /** False for components that run as plain containers (RKE's docker containers): no mirror pod. */
  readonly mirror: boolean;
  /** Files the distribution writes on the host for it, by path (RKE's /etc/kubernetes/cloud-config). */
  readonly files?: Readonly<Record<string, string>>;
}

export interface NodeConfig {
  readonly kubelet: KubeletConfig;
  /** Empty on workers. */
  readonly staticPods: readonly StaticPodConfig[];
  /** Labels the distribution puts on the Node (role labels). */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints it registers with (role taints). */
  readonly taints: readonly Taint[];
  /** Annotations it keeps on the Node (RKE2 machine, RKE config hash...). */
  readonly annotations: Readonly<Record<string, string>>;
}

/** Every flag of a static pod: command after the binary, then args. */
export function flagsOf(pod: Pick<StaticPodConfig, 'command' | 'args'>): string[] {
  return [...pod.command.slice(1), ...pod.args];
}

/** The value of `--name=value` / `--name value` / `--name` (true) in a flag list; last wins like pflag. */
export function flagValue(flags: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (f === `--${name}`) {
      const next = flags[i + 1];
      value = next !== undefined && !next.startsWith('-') ? next : 'true';
    } else if (f.startsWith(`--${name}=`)) value = f.slice(name.length + 3);
  }
  return value;
}

/** Stable text of a config part, to tell whether it changed. */
export function configKey(value: unknown): string {
  return JSON.stringify(value);
}
