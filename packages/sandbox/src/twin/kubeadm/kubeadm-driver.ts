import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from 'uproot';
import type { EventRecorder } from '../events/event-recorder.js';
import { nodeReference } from '../events/event-recorder.js';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import {
  configKey,
  type KubeletCloudProvider,
  type NodeConfig,
  type StaticPodConfig,
} from '../nodes/node-config.js';
import type { NodeAgent } from '../nodes/node-agent.js';
import { every } from '../runtime/work-queue.js';
import {
  KUBELET_FLAGS_FILE,
  MANIFESTS_DIR,
  kubeApiserverManifest,
  kubeControllerManagerManifest,
  kubeadmNodeConfig,
  kubeletFlagsEnv,
  parseKubeletFlags,
  parseStaticPodManifest,
} from './kubeadm-files.js';
import { INSTALLED_KUBELET, kubeletVersionText, readInstalledKubelet } from './installed-kubelet.js';

/**
 * kubeadm-style nodes: each machine has a folder `DIR/nodes/<node>/` holding its
 * etc/kubernetes/manifests/*.yaml, var/lib/kubelet/kubeadm-flags.env and whatever else a person puts there
 * (etc/leadermigration.conf). Its kubelet looks at them every poll period and restarts the components whose
 * manifest changed (and itself when its flags changed), so seed 003 is followed by editing files.
 */

export interface KubeadmDriverOptions {
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly version: DistroVersion;
  readonly pollMs: number;
  readonly log: (line: string) => void;
}

export function writeInitialKubeadmFiles(
  nodeDir: string,
  instance: InstanceLayout,
  version: DistroVersion,
  cloud: KubeletCloudProvider,
  options: { readonly cloudRoutes?: boolean } = {},
): void {
  const manifests = join(nodeDir, MANIFESTS_DIR);
  mkdirSync(manifests, { recursive: true });
  mkdirSync(join(nodeDir, 'var/lib/kubelet'), { recursive: true });
  writeFileSync(join(nodeDir, KUBELET_FLAGS_FILE), kubeletFlagsEnv(cloud));
  mkdirSync(join(nodeDir, dirname(INSTALLED_KUBELET)), { recursive: true });
  writeFileSync(join(nodeDir, INSTALLED_KUBELET), kubeletVersionText(version.kubelet));
  if (instance.role === 'control-plane') {
    writeFileSync(join(manifests, 'kube-apiserver.yaml'), kubeApiserverManifest(version, instance, cloud));
    writeFileSync(
      join(manifests, 'kube-controller-manager.yaml'),
      kubeControllerManagerManifest(version, cloud, options),
    );
  }
}

export class KubeadmDriver {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly busy = new Set<NodeAgent>();
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly agents: readonly { agent: NodeAgent; nodeDir: string }[],
    private readonly options: KubeadmDriverOptions,
  ) {}

  /** Reads a node's files into the configuration its kubelet would run. */
  readNodeConfig(agent: NodeAgent, nodeDir: string): NodeConfig {
    const flagsPath = join(nodeDir, KUBELET_FLAGS_FILE);
    const flags = existsSync(flagsPath) ? parseKubeletFlags(readFileSync(flagsPath, 'utf8')) : [];
    const pods: StaticPodConfig[] = [];
    const dir = join(nodeDir, MANIFESTS_DIR);
    const files = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => /\.(ya?ml|json)$/.test(f) && !f.startsWith('.'))
          .sort()
      : [];
    for (const file of files) {
      const parsed = parseStaticPodManifest(readFileSync(join(dir, file), 'utf8'), file);
      const key = `${nodeDir}/${file}`;
      if (parsed.ok) {
        this.reported.delete(key);
        if (!pods.some((p) => p.component === parsed.pod.component)) pods.push(parsed.pod);
      } else if (this.reported.get(key) !== parsed.error) {
        // The kubelet logs and skips a manifest it cannot read; so does the twin, once per distinct error.
        this.reported.set(key, parsed.error);
        this.options.log(`${agent.nodeName ?? agent.instance.machineName}: ${parsed.error}`);
        if (agent.nodeName) {
          this.options.events.record(
            nodeReference(agent.nodeName),
            'Warning',
            'FailedToProcessManifest',
            parsed.error,
            {
              component: 'kubelet',
              host: agent.nodeName,
            },
          );
        }
      }
    }
    return kubeadmNodeConfig({
      instance: agent.instance,
      kubeletVersion: this.installedKubelet(agent, nodeDir),
      kubeletFlags: flags,
      staticPods: pods,
    });
  }

  /** The machine's installed kubelet version; an unreadable package keeps the running one (logged once). */
  private installedKubelet(agent: NodeAgent, nodeDir: string): string {
    const running = agent.runningConfig?.kubelet.version ?? this.options.version.kubelet;
    const installed = readInstalledKubelet(nodeDir, this.options.version.kubelet);
    const key = `${nodeDir}/${INSTALLED_KUBELET}`;
    if (installed.ok) {
      this.reported.delete(key);
      return installed.version;
    }
    if (this.reported.get(key) !== installed.error) {
      this.reported.set(key, installed.error);
      this.options.log(`${agent.nodeName ?? agent.instance.machineName}: kubelet: ${installed.error}`);
    }
    return running;
  }

  start(): void {
    this.loop = every(
      this.options.clock,
      this.options.pollMs,
      this.abort.signal,
      () => this.poll(),
      (error) =>
        this.options.log(`kubeadm kubelet poll: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  /** One look at every node's files; changed nodes apply in the background (each at most one at a time). */
  poll(): void {
    for (const { agent, nodeDir } of this.agents) {
      if (this.busy.has(agent)) continue;
      const config = this.readNodeConfig(agent, nodeDir);
      if (configKey(config) === configKey(agent.runningConfig)) continue;
      this.busy.add(agent);
      void agent
        .apply(config)
        .then((r) =>
          this.options.log(
            `${agent.nodeName}: kubelet ${r.kubeletRestarted ? 'restarted' : 'unchanged'}; static pods restarted: ${r.restartedPods.join(', ') || 'none'}`,
          ),
        )
        .catch((error: unknown) =>
          this.options.log(
            `${agent.instance.machineName}: ${error instanceof Error ? error.message : String(error)}`,
          ),
        )
        .finally(() => this.busy.delete(agent));
    }
  }
}
