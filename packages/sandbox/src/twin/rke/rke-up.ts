import { type Clock, UprootError } from 'uproot';
import { atLeast, judgeRelease, parseKubernetesVersion } from 'uproot/core';
import { isRecord } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { hasRole } from '../layout/cluster-layout.js';
import { distroVersion, type DistroVersion } from '../layout/versions.js';
import { configKey, type NodeConfig } from '../nodes/node-config.js';
import type { NodeAgent } from '../nodes/node-agent.js';
import { cordon, uncordon } from '../nodes/cordon.js';
import { probeFailures, type ProbeFailure } from '../components/probes.js';
import { machineFor, parseRkeClusterYaml } from './rke-cluster-config.js';
import type { Taint } from '../scheduling/taints.js';
import { rkeHostTaints, rkeNodeConfig } from './rke-node-config.js';
import { drainNode } from '../nodes/drain.js';
import {
  calculateMaxUnavailable,
  rkeUpgradeStrategy,
  runHostPool,
  type RkeUpgradeStrategy,
} from './rke-rolling.js';

/**
 * `rke up` against the twin: reads cluster.yml, checks it as RKE does, and rolls the changed nodes by RKE's
 * rules (rke-rolling.ts: controlplane hosts max_unavailable_controlplane at a time, then etcd hosts one at a
 * time, then workers max_unavailable_worker at a time; each cordoned, drained with `drain: true`, restarted,
 * uncordoned), logging in RKE's style. One run at a time, like RKE's state lock.
 */

export type RkeUpResult =
  | { readonly ok: true; readonly log: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly log: readonly string[] };

export interface RkeUpOptions {
  readonly agents: readonly NodeAgent[];
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly rolloutDelayMs: number;
  readonly log: (line: string) => void;
}

/** The RKE release the twin's `rke up` plays (its log's first line, and `rke --version`). */
export const TWIN_RKE_VERSION = 'v1.5.10';

export class RkeUp {
  private running = false;
  private version: DistroVersion | undefined;
  /** Each host's role taints from the last cluster.yml that planned (what the final sync writes). */
  private hostTaints = new Map<NodeAgent, Taint[]>();

  constructor(private readonly options: RkeUpOptions) {}

  /** The configuration each machine gets from a cluster.yml (throws an InputError for a bad file). */
  plan(text: string, file: string): { configs: Map<NodeAgent, NodeConfig>; version: DistroVersion } {
    const cluster = parseRkeClusterYaml(text, file);
    const raw = cluster.kubernetesVersion ?? this.version?.configured ?? 'v1.26.15-rancher1-1';
    const version = distroVersion('rke', raw);
    const parsed = parseKubernetesVersion(raw, 'kubernetes_version');
    // rancher/rke cluster/defaults.go (from v1.4.15/v1.5.0): "Cloud provider %s is invalid for [%s]" when the
    // in-tree aws provider meets a version >= 1.27.0-rancher0; rke up stops before touching a host.
    if (cluster.cloudProviderName === 'aws' && atLeast(parsed, 1, 27)) {
      throw new UprootError('UP-RKE-UP', `Cloud provider aws is invalid for [${raw}]`, {
        location: { file, field: 'cloud_provider.name', value: 'aws' },
        hint: 'the in-tree AWS provider is gone in 1.27: migrate to external-aws first, then upgrade',
      });
    }
    this.refuseUnknownRelease(raw, file);
    const configs = new Map<NodeAgent, NodeConfig>();
    const hostTaints = new Map<NodeAgent, Taint[]>();
    const instances = this.options.agents.map((a) => a.instance);
    for (const entry of cluster.nodes) {
      const instance = machineFor(entry, instances);
      if (!instance) {
        throw new UprootError(
          'UP-RKE-UP',
          `Failed to set up SSH tunneling for host [${entry.address}]: no such host in the sandbox`,
          {
            location: { file, field: 'nodes', value: entry.address },
            hint: "list the twin's nodes by their addresses (see the cluster.yml the sandbox wrote)",
          },
        );
      }
      const agent = this.options.agents.find((a) => a.instance === instance)!;
      configs.set(agent, rkeNodeConfig(cluster, entry, instance, version));
      hostTaints.set(agent, rkeHostTaints(entry.roles));
    }
    const missing = this.options.agents.filter((a) => !configs.has(a));
    if (missing.length > 0) {
      throw new UprootError(
        'UP-RKE-UP',
        `cluster.yml does not list host [${missing[0]!.instance.privateIp}]; removing nodes is not simulated`,
        {
          location: { file, field: 'nodes', value: missing[0]!.instance.privateIp },
          hint: 'keep every node of the twin in cluster.yml',
        },
      );
    }
    this.hostTaints = hostTaints;
    return { configs, version };
  }

  /**
   * rancher/rke cluster/validation.go validateVersion: a kubernetes_version missing from the KDM data RKE
   * carries (metadata.K8sVersionToRKESystemImages), with no system images given, fails "%s is an unsupported
   * Kubernetes version and system images are not populated: %v" (the first missing image: etcd), and `rke up`
   * stops before touching a host. The twin's KDM is uproot's release table; the version it runs is known.
   */
  private refuseUnknownRelease(raw: string, file: string): void {
    const parsed = parseKubernetesVersion(raw, 'kubernetes_version');
    if (raw === this.version?.configured || judgeRelease('rke', parsed).type === 'known') return;
    throw new UprootError(
      'UP-RKE-UP',
      `Failed to validate cluster: ${raw} is an unsupported Kubernetes version and system images are not populated: etcd image is not populated`,
      {
        location: { file, field: 'kubernetes_version', value: raw },
        hint: 'use a kubernetes_version this RKE release knows (`rke config --list-version --all`)',
      },
    );
  }

  /**
   * The last step of `rke up` (rancher/rke cmd/up.go SyncLabelsAndTaints, k8s/node.go SyncNodeTaints): adds
   * each host's role taints that its Node lacks (same key, value and effect), leaving other taints alone.
   */
  syncNodeTaints(): void {
    for (const [agent, taints] of this.hostTaints) {
      const name = agent.nodeName;
      if (!name || taints.length === 0) continue;
      this.options.kube.mutate(R.nodes, undefined, name, (draft) => {
        const spec = isRecord(draft.spec) ? draft.spec : {};
        const current = Array.isArray(spec.taints) ? (spec.taints as Taint[]) : [];
        const missing = taints.filter(
          (t) =>
            !current.some(
              (c) => c.key === t.key && (c.value ?? '') === (t.value ?? '') && c.effect === t.effect,
            ),
        );
        if (missing.length === 0) return undefined;
        draft.spec = { ...spec, taints: [...current, ...missing] };
        return draft;
      });
    }
  }

  /** Boot-time: remembers the version the cluster was built with. */
  setVersion(version: DistroVersion): void {
    this.version = version;
  }

  async up(text: string, file: string): Promise<RkeUpResult> {
    const lines: string[] = [];
    const started = this.options.clock.now();
    const say = (level: 'INFO' | 'WARN' | 'FATA', line: string): void => {
      const seconds = String(Math.floor((this.options.clock.now() - started) / 1000)).padStart(4, '0');
      const formatted = `${level}[${seconds}] ${line}`;
      lines.push(formatted);
      this.options.log(`rke up: ${formatted}`);
    };
    if (this.running) {
      return { ok: false, reason: 'another rke up is in progress on this cluster', log: lines };
    }
    this.running = true;
    try {
      say('INFO', `Running RKE version: ${TWIN_RKE_VERSION} (uproot sandbox)`);
      say('INFO', 'Initiating Kubernetes cluster');
      let plan: ReturnType<RkeUp['plan']>;
      try {
        plan = this.plan(text, file);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        say('FATA', reason);
        return { ok: false, reason, log: lines };
      }
      this.version = plan.version;
      const failure = await this.rollPlanes(plan.configs, rkeUpgradeStrategy(text), say);
      if (failure) {
        say('FATA', failure);
        return { ok: false, reason: failure, log: lines };
      }
      say('INFO', '[sync] Syncing nodes Labels and Taints');
      this.syncNodeTaints();
      say('INFO', '[sync] Successfully synced nodes Labels and Taints');
      say('INFO', 'Finished building Kubernetes cluster successfully');
      return { ok: true, log: lines };
    } finally {
      this.running = false;
    }
  }

  /**
   * The planes in RKE's order with its rolling rules (rke-rolling.ts); returns RKE's error for the first
   * plane that failed. etcd containers are not simulated: the etcd plane restarts nothing on the twin, and an
   * etcd host's kubelet is redeployed with the worker plane, one such host at a time.
   */
  private async rollPlanes(
    configs: ReadonlyMap<NodeAgent, NodeConfig>,
    strategy: RkeUpgradeStrategy,
    say: (level: 'INFO', line: string) => void,
  ): Promise<string | undefined> {
    const hosts = [...configs];
    const changed = hosts.filter(([agent, config]) => configKey(agent.runningConfig) !== configKey(config));
    const role = (r: 'control-plane' | 'etcd' | 'worker') => (h: (typeof hosts)[number]) =>
      hasRole(h[0].instance, r);
    const control = calculateMaxUnavailable(
      strategy.maxUnavailableControlplane,
      hosts.filter(role('control-plane')).length,
      'controlplane',
    );
    const worker = calculateMaxUnavailable(
      strategy.maxUnavailableWorker,
      hosts.filter(role('worker')).length,
      'worker',
    );
    if (!control.ok) return control.error;
    if (!worker.ok) return worker.error;
    say('INFO', `Setting maxUnavailable for worker nodes to: ${worker.n}`);
    say('INFO', `Setting maxUnavailable for controlplane nodes to: ${control.n}`);
    say('INFO', '[etcd] Building up etcd plane..');
    say('INFO', '[etcd] Successfully started etcd plane.. Checking etcd cluster health');
    say('INFO', `[controlplane] Processing controlplane hosts for upgrade ${control.n} at a time`);
    const delay = this.options.rolloutDelayMs;
    const cpFailures = await runHostPool(changed.filter(role('control-plane')), control.n, async ([a, c]) => {
      const failure = await this.roll(a, c, 'controlplane', say, strategy);
      if (!failure && delay > 0) await this.options.clock.sleep(delay);
      return failure;
    });
    if (cpFailures.length > 0)
      return `[controlPlane] Failed to upgrade Control Plane: [${cpFailures.join(' ')}]`;
    say('INFO', `[controlplane] Successfully upgraded Controller Plane..`);
    const rest = changed.filter((h) => !role('control-plane')(h));
    if (rest.length === 0) return undefined;
    say('INFO', `[worker] Upgrading Worker Plane..`);
    const etcdHosts = rest.filter(role('etcd'));
    const workerOnly = rest.filter((h) => !role('etcd')(h));
    if (etcdHosts.length > 0)
      say(
        'INFO',
        'First checking and processing worker components for upgrades on nodes with etcd role one at a time',
      );
    const failed = await runHostPool(etcdHosts, 1, ([a, c]) => this.roll(a, c, 'worker', say, strategy));
    if (workerOnly.length > 0 && failed.length === 0)
      say(
        'INFO',
        `Now checking and upgrading worker components on nodes with only worker role ${worker.n} at a time`,
      );
    if (failed.length === 0)
      failed.push(
        ...(await runHostPool(workerOnly, worker.n, ([a, c]) => this.roll(a, c, 'worker', say, strategy))),
      );
    if (failed.length > 0) return `[workerPlane] Failed to upgrade Worker Plane: [${failed.join(' ')}]`;
    say('INFO', '[worker] Successfully upgraded Worker Plane..');
    return undefined;
  }

  /**
   * Upgrades one host (services/controlplane.go upgradeControlHost, workerplane.go upgradeWorkerHost): cordon,
   * drain with `drain: true` (node_util.go cordonAndDrainNode), redeploy, healthcheck, uncordon. Returns RKE's
   * error when the drain is refused or a service does not come up (the host stays cordoned).
   */
  private async roll(
    agent: NodeAgent,
    config: NodeConfig,
    plane: string,
    say: (level: 'INFO', line: string) => void,
    strategy: RkeUpgradeStrategy,
  ): Promise<string | undefined> {
    const host = agent.instance.privateIp;
    const before = agent.nodeName;
    if (before) cordon(this.options.kube, before);
    if (before && strategy.drain) {
      // node_util.go cordonAndDrainNode: drain.RunNodeDrain's error (a refusal, or kubectl's "global timeout
      // reached" when a PodDisruptionBudget holds an eviction past node_drain_input.timeout) fails the host.
      const drained = await drainNode(
        {
          kube: this.options.kube,
          clock: this.options.clock,
          errOut: (line) => say('INFO', line),
        },
        before,
        strategy.drainInput,
      );
      if (!drained.ok) return `error draining node ${before}: ${drained.error}`;
    }
    say('INFO', `[${plane}] Upgrading ${plane} host [${host}]`);
    const applied = await agent.apply(config);
    if (applied.kubeletRestarted || applied.restartedPods.length > 0) agent.restartCounts.note('rke up');
    await this.options.clock.sleep(HEALTHCHECK_DELAY_MS);
    const failure = probeFailures(agent)[0];
    if (failure) return healthcheckError(failure, host);
    const after = agent.nodeName;
    if (after) uncordon(this.options.kube, after);
    if (before && before !== after) uncordon(this.options.kube, before);
    say('INFO', `[${plane}] Finished upgrading ${plane} host [${host}]`);
    return undefined;
  }
}

/** RKE checks each service's healthz (10 tries, 5 s apart) after it upgrades a host. */
const HEALTHCHECK_DELAY_MS = 1_000;

const HEALTHZ: Readonly<Record<string, string>> = {
  'kube-apiserver': 'https://localhost:6443/healthz',
  'kube-controller-manager': 'https://localhost:10257/healthz',
  kubelet: 'http://localhost:10248/healthz',
};

/** As rancher/rke services/healthcheck.go reports a service that never answered (with its last log line). */
function healthcheckError(failure: ProbeFailure, host: string): string {
  const url = HEALTHZ[failure.component] ?? 'http://localhost/healthz';
  const port = /:(\d+)\//.exec(url)?.[1] ?? '';
  return `Failed to verify healthcheck: Failed to check ${url} for service [${failure.component}] on host [${host}]: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused, log: ${failure.log}`;
}
