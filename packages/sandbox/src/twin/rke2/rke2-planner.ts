import type { Clock } from 'uproot';
import { judgeRelease } from 'uproot/core';
import { ComponentError } from '../../component-error.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { involvedObjectOf } from '../events/event-recorder.js';
import type { ManifestApplier } from '../helm/manifest-applier.js';
import { parseManifests } from '../helm/manifest-applier.js';
import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { hasRole } from '../layout/cluster-layout.js';
import { distroVersion, type DistroVersion } from '../layout/versions.js';
import { configKey, type NodeConfig } from '../nodes/node-config.js';
import type { NodeAgent } from '../nodes/node-agent.js';
import type { NodeFleet } from '../nodes/node-fleet.js';
import { WorkQueue } from '../runtime/work-queue.js';
import { reconcilingStatus, settledStatus, stalledStatus } from './provisioning-cluster.js';
import { rke2NodeConfig } from './rke2-node-config.js';
import { cordon, uncordon } from '../nodes/cordon.js';
import { probeFailures } from '../components/probes.js';

/**
 * Rancher's RKE2 planner, simulated: it watches the provisioning Cluster in the management API, computes
 * every machine's plan (machineGlobalConfig + matching machineSelectorConfig → component flags,
 * `spec.kubernetesVersion`; on control-plane machines also `spec.rkeConfig.additionalManifest` as the file
 * addons.yaml), and rolls changed plans out one control-plane node at a time (cordon, restart what changed,
 * uncordon, wait the configured delay), then workers. The Cluster's status tracks it (see
 * provisioning-cluster.ts).
 *
 * addons.yaml is a plan file Rancher does not mark Minor (rancher/rancher pkg/capr/planner/manifests.go
 * getAddons), so changing additionalManifest is a plan change the planner rolls through the control-plane
 * tier machine by machine (planner.go: minorPlanChangeDetected false → the concurrency-limited path); the file
 * is Dynamic, left out of the restart stamp and the drain hash (config.go restartStamp, drainHash), so those
 * machines neither restart nor drain. rke2's deploy controller applies the manifest once the first server
 * has the new file.
 */

export interface Rke2PlannerOptions {
  readonly management: TwinKube;
  readonly downstream: TwinKube;
  readonly fleet: NodeFleet;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly applier: ManifestApplier;
  readonly clusterName: string;
  readonly namespace: string;
  readonly rolloutDelayMs: number;
  readonly log: (line: string) => void;
}

export class Rke2Planner {
  private readonly queue: WorkQueue<string>;
  private unsubscribe: (() => void) | undefined;
  private appliedManifest: string | undefined;
  /** The additionalManifest in each control-plane machine's plan (its addons.yaml). */
  private readonly addons = new Map<NodeAgent, string>();
  private stopped = false;

  constructor(private readonly options: Rke2PlannerOptions) {
    this.queue = new WorkQueue(
      options.clock,
      () => this.reconcile(),
      (_key, error) => options.log(`rke2 planner: ${error instanceof Error ? error.message : String(error)}`),
      { tracked: false },
    );
  }

  start(): void {
    const { management, clusterName, namespace } = this.options;
    this.unsubscribe = management.watch(R.provisioningClusters, (event) => {
      if (metaOf(event.object).name !== clusterName || event.namespace !== namespace) return;
      if (
        event.type !== 'DELETED' &&
        event.prev &&
        JSON.stringify(event.prev.spec) === JSON.stringify(event.object.spec)
      )
        return;
      this.queue.add('cluster');
    });
    this.queue.add('cluster');
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.queue.close();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** The plan every machine should run for a Cluster object. */
  desiredConfigs(cluster: KubeObject): Map<NodeAgent, NodeConfig> {
    const spec = isRecord(cluster.spec) ? cluster.spec : {};
    const version = this.versionOf(spec);
    const out = new Map<NodeAgent, NodeConfig>();
    for (const agent of this.options.fleet.all()) {
      out.set(agent, rke2NodeConfig({ rkeConfig: spec.rkeConfig, instance: agent.instance, version }));
    }
    return out;
  }

  private versionOf(spec: Record<string, unknown>): DistroVersion {
    return distroVersion(
      'rke2',
      typeof spec.kubernetesVersion === 'string' ? spec.kubernetesVersion : 'v1.26.15+rke2r1',
    );
  }

  /**
   * A release that does not exist: Rancher's plan for the init node installs
   * rancher/system-agent-installer-rke2:<release>, which no registry has, so rancher-system-agent fails the plan
   * and Rancher reports it on the machine and the Cluster without touching another node (rancher/rancher
   * pkg/controllers/provisioningv2/plansecret/plansecret.go: "error applying plan -- check
   * rancher-system-agent.service logs on node for more information"). The twin's releases are uproot's table
   * (uproot/core judgeRelease); a release the nodes already run is taken as existing.
   */
  private refuseUnknownRelease(version: DistroVersion): void {
    if (judgeRelease('rke2', { ...version.version, raw: version.configured }).type === 'known') return;
    const agents = this.options.fleet.all();
    if (agents.some((a) => a.runningConfig?.kubelet.version === version.kubelet)) return;
    const init = this.initMachine() ?? agents[0]?.instance.machineName ?? 'machine';
    throw new ComponentError(
      `configuring bootstrap node(s) ${init}: error applying plan -- check rancher-system-agent.service logs on node for more information`,
    );
  }

  private cluster(): KubeObject | undefined {
    return this.options.management.get(
      R.provisioningClusters,
      this.options.namespace,
      this.options.clusterName,
    );
  }

  private writeStatus(
    status: (previous: unknown, generation: number, now: number) => Record<string, unknown>,
  ): void {
    const { management, namespace, clusterName, clock } = this.options;
    management.mutateStatus(R.provisioningClusters, namespace, clusterName, (draft) => {
      draft.status = status(draft.status, metaOf(draft).generation ?? 1, clock.now());
      return draft;
    });
  }

  private async reconcile(): Promise<void> {
    const { clock, log, rolloutDelayMs } = this.options;
    for (;;) {
      if (this.stopped) return;
      const cluster = this.cluster();
      if (!cluster) return;
      const spec = isRecord(cluster.spec) ? cluster.spec : {};
      const rkeConfig = isRecord(spec.rkeConfig) ? spec.rkeConfig : {};
      try {
        this.refuseUnknownRelease(this.versionOf(spec));
      } catch (error) {
        this.writeStatus((p, g, n) =>
          stalledStatus(p, g, n, error instanceof Error ? error.message : String(error)),
        );
        return;
      }
      const manifest = typeof rkeConfig.additionalManifest === 'string' ? rkeConfig.additionalManifest : '';
      const servers = this.options.fleet.all().filter((a) => hasRole(a.instance, 'control-plane'));
      // The machines were provisioned with the manifest the Cluster had at boot; without a control-plane
      // machine to carry it, nothing rolls it out and it is applied as is.
      if (this.appliedManifest === undefined || servers.length === 0) {
        this.applyAdditionalManifest(cluster, manifest);
        for (const agent of servers) if (!this.addons.has(agent)) this.addons.set(agent, manifest);
      }
      const desired = this.desiredConfigs(cluster);
      const pending = [...desired].filter(
        ([agent, config]) =>
          configKey(agent.runningConfig) !== configKey(config) ||
          (hasRole(agent.instance, 'control-plane') && this.addons.get(agent) !== manifest),
      );
      // A node whose plan is in but whose probes fail holds the rollout (Rancher waits for it, forever).
      const stuck = [...desired].find(
        ([agent]) => !pending.some(([p]) => p === agent) && probeFailures(agent).length > 0,
      );
      if (stuck) {
        this.reportProbes(stuck[0]);
        return;
      }
      if (pending.length === 0) {
        this.writeStatus(settledStatus);
        return;
      }
      // Rancher's tiers, each finished before the next (pkg/capr/planner/planner.go): the init node
      // ("bootstrap"), then the other etcd machines one at a time (combined etcd + control-plane ones among
      // them), then control-plane, then workers.
      const etcd = pending.filter(([agent]) => hasRole(agent.instance, 'etcd'));
      const controlPlane = pending.filter(([agent]) => hasRole(agent.instance, 'control-plane'));
      const [kind, batch] =
        etcd.length > 0
          ? [tierOf(etcd[0]![0], this.initMachine()), etcd.slice(0, 1)]
          : controlPlane.length > 0
            ? [
                'control plane',
                controlPlane.slice(0, tierConcurrency(rkeConfig, 'controlPlaneConcurrency', servers.length)),
              ]
            : ['worker', pending.slice(0, tierConcurrency(rkeConfig, 'workerConcurrency', pending.length))];
      const names = batch.map(([agent]) => agent.instance.machineName).join(',');
      this.writeStatus((p, g, n) => reconcilingStatus(p, g, n, `configuring ${kind} node(s) ${names}`));
      log(
        `rke2 planner: generation ${metaOf(cluster).generation ?? 1}: configuring ${kind} node(s) ${names}`,
      );
      await Promise.all(batch.map(([agent, config]) => this.rollNode(cluster, agent, config, manifest)));
      const failed = batch.find(([agent]) => probeFailures(agent).length > 0);
      if (failed) {
        this.reportProbes(failed[0]);
        return;
      }
      if (rolloutDelayMs > 0) await clock.sleep(rolloutDelayMs);
    }
  }

  /**
   * Rancher's message for a node whose probes fail after its plan was applied (pkg/capr/planner store.go
   * probesMessage, reconcile: "configuring <tier> node(s) <machine>: waiting for probes: <names>").
   */
  /** Rancher's init node: the first etcd machine (rke.cattle.io/init-node). */
  private initMachine(): string | undefined {
    return this.options.fleet.all().find((a) => hasRole(a.instance, 'etcd'))?.instance.machineName;
  }

  private reportProbes(agent: NodeAgent): void {
    const failures = probeFailures(agent);
    const message = `configuring ${tierOf(agent, this.initMachine())} node(s) ${agent.instance.machineName}: waiting for probes: ${failures.map((f) => f.component).join(', ')}`;
    this.writeStatus((p, g, n) => reconcilingStatus(p, g, n, message));
    this.options.log(
      `rke2 planner: ${message} (${failures.map((f) => `${f.component}: ${f.log}`).join('; ')})`,
    );
  }

  private async rollNode(
    cluster: KubeObject,
    agent: NodeAgent,
    config: NodeConfig,
    manifest: string,
  ): Promise<void> {
    const { downstream } = this.options;
    if (hasRole(agent.instance, 'control-plane') && this.addons.get(agent) !== manifest) {
      this.addons.set(agent, manifest);
      this.applyAdditionalManifest(cluster, manifest);
      if (configKey(agent.runningConfig) === configKey(config)) {
        // Only addons.yaml changed: the system-agent writes it; no drain, no restart.
        this.options.log(`rke2 planner: ${agent.instance.machineName} applied (addons.yaml only)`);
        await this.options.clock.sleep(PROBE_DELAY_MS);
        return;
      }
    }
    const before = agent.nodeName;
    if (before) cordon(downstream, before);
    // The plan's restart stamp changed (its config.yaml did): the system-agent restarts the service.
    agent.restartCounts.note(
      hasRole(agent.instance, 'control-plane') || hasRole(agent.instance, 'etcd')
        ? 'rke2-server'
        : 'rke2-agent',
    );
    const result = await agent.apply(config);
    this.options.log(
      `rke2 planner: ${agent.instance.machineName} applied (kubelet ${result.kubeletRestarted ? 'restarted' : 'unchanged'}; pods restarted: ${result.restartedPods.join(', ') || 'none'})`,
    );
    // The system-agent's probes, a moment after the plan is applied; a node that fails them stays cordoned.
    await this.options.clock.sleep(PROBE_DELAY_MS);
    if (probeFailures(agent).length > 0) return;
    const after = agent.nodeName;
    if (after) {
      uncordon(downstream, after);
      if (before && before !== after) uncordon(downstream, before);
    }
  }

  private applyAdditionalManifest(cluster: KubeObject, text: string): void {
    if (this.appliedManifest === text) return;
    this.appliedManifest = text;
    const { objects, errors } = parseManifests(text);
    const result = this.options.applier.apply('rke2-additional-manifest', objects);
    const all = [...errors, ...result.errors];
    if (all.length > 0) {
      this.options.events.record(
        involvedObjectOf(cluster),
        'Warning',
        'AdditionalManifestFailed',
        all.join('; '),
        { component: 'rke2-planner' },
      );
      this.options.log(`rke2 planner: additionalManifest: ${all.join('; ')}`);
    }
  }
}

/** How long after applying a plan the system-agent's probes are read. */
const PROBE_DELAY_MS = 1_000;

/**
 * The tier Rancher names in "configuring <tier> node(s)": the init node (the first etcd machine, labelled
 * rke.cattle.io/init-node) is reconciled alone as "bootstrap" (planner.go bootstrapTier, isNotInitNodeOrIsDeleting).
 */
function tierOf(agent: NodeAgent, initMachine: string | undefined): string {
  if (hasRole(agent.instance, 'etcd'))
    return agent.instance.machineName === initMachine ? 'bootstrap' : 'etcd';
  return hasRole(agent.instance, 'control-plane') ? 'control plane' : 'worker';
}

/**
 * How many machines of a tier Rancher changes at once: upgradeStrategy.controlPlaneConcurrency or
 * workerConcurrency, "" → 1, a number as is ("0": no limit), a percentage of the tier's machines rounded
 * up (rancher/rancher pkg/capr/planner/planner.go calculateConcurrency). Rancher goes through the tier's
 * machines in name order (collect), so it, not uproot, decides whether the lease holder's machine is last.
 */
export function tierConcurrency(
  rkeConfig: Record<string, unknown>,
  field: 'controlPlaneConcurrency' | 'workerConcurrency',
  machines: number,
): number {
  const strategy = isRecord(rkeConfig.upgradeStrategy) ? rkeConfig.upgradeStrategy : {};
  const raw = String(strategy[field] ?? '');
  if (raw === '') return 1;
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(raw);
  const n = pct ? Math.ceil((Number(pct[1]) / 100) * machines) : Number.parseInt(raw, 10);
  if (n === 0) return Number.POSITIVE_INFINITY;
  return Math.max(1, Number.isFinite(n) ? n : 1);
}
