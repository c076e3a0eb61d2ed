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
import { drainNode } from '../nodes/drain.js';
import {
  calculateConcurrency,
  hasCapacity,
  rancherTiers,
  tierMessage,
  type MachinePhase,
  type Tier,
} from './rancher-tiers.js';

/**
 * Rancher's RKE2 planner, simulated: it watches the provisioning Cluster in the management API, computes
 * every machine's plan (machineGlobalConfig + matching machineSelectorConfig → component flags,
 * `spec.kubernetesVersion`; on control-plane machines also `spec.rkeConfig.additionalManifest` as the file
 * addons.yaml), and rolls changed plans out tier by tier (rancher-tiers.ts): drain when the tier's drain options
 * are enabled, restart what changed, uncordon what it drained, wait the configured delay. The Cluster's status tracks it (see
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
  /** Machines whose plan is being carried out, and each one's phase for the Cluster's message. */
  private readonly inFlight = new Map<NodeAgent, Promise<void>>();
  private readonly phases = new Map<NodeAgent, { phase: MachinePhase; detail?: string }>();
  private tierInProgress: { tier: Tier<NodeAgent>; waiting: NodeAgent[] } | undefined;

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

  /**
   * Rancher's fullReconcile, level-triggered: each pass takes the first tier with work (rancher-tiers.ts),
   * starts as many of its out-of-sync machines as its concurrency leaves room for (machines still rolling,
   * draining, uncordoning or failing their probes are the unavailable ones), and runs again when one finishes.
   */
  private async reconcile(): Promise<void> {
    while (!this.stopped) {
      this.reconcileOnce();
      if (this.inFlight.size === 0) return;
      await Promise.race(this.inFlight.values());
    }
  }

  /** One pass of the planner; 'wait' while machines it started are still rolling. */
  private reconcileOnce(): 'done' | 'wait' {
    const cluster = this.cluster();
    if (!cluster) return 'done';
    const spec = isRecord(cluster.spec) ? cluster.spec : {};
    const rkeConfig = isRecord(spec.rkeConfig) ? spec.rkeConfig : {};
    try {
      this.refuseUnknownRelease(this.versionOf(spec));
    } catch (error) {
      this.writeStatus((p, g, n) =>
        stalledStatus(p, g, n, error instanceof Error ? error.message : String(error)),
      );
      return 'done';
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
    const outOfSync = (agent: NodeAgent): boolean =>
      configKey(agent.runningConfig) !== configKey(desired.get(agent)) ||
      (hasRole(agent.instance, 'control-plane') && this.addons.get(agent) !== manifest);
    for (const tier of rancherTiers(this.options.fleet.all(), this.initMachine(), rkeConfig)) {
      const verdict = this.reconcileTier(cluster, tier, outOfSync, (agent) => desired.get(agent)!, manifest);
      if (verdict !== 'next') return verdict;
    }
    this.writeStatus(settledStatus);
    return 'done';
  }

  /** planner.go reconcile for one tier: 'next' when every machine of it is in sync and healthy. */
  private reconcileTier(
    cluster: KubeObject,
    tier: Tier<NodeAgent>,
    outOfSync: (agent: NodeAgent) => boolean,
    configOf: (agent: NodeAgent) => NodeConfig,
    manifest: string,
  ): 'next' | 'done' | 'wait' {
    const waiting = tier.machines.filter((a) => !this.inFlight.has(a) && outOfSync(a));
    const rolling = tier.machines.filter((a) => this.inFlight.has(a));
    const unhealthy = tier.machines.filter(
      (a) => !this.inFlight.has(a) && !waiting.includes(a) && probeFailures(a).length > 0,
    );
    if (waiting.length === 0 && rolling.length === 0 && unhealthy.length === 0) return 'next';
    const parsed = calculateConcurrency(tier.maxUnavailable, tier.machines.length);
    if (!parsed.ok) {
      this.writeStatus((p, g, n) => reconcilingStatus(p, g, n, parsed.error));
      return 'done';
    }
    let unavailable = rolling.length + unhealthy.length;
    const generation = metaOf(cluster).generation ?? 1;
    for (const agent of [...waiting]) {
      if (!hasCapacity(parsed.concurrency, unavailable)) break;
      unavailable++;
      waiting.splice(waiting.indexOf(agent), 1);
      this.options.log(
        `rke2 planner: generation ${generation}: configuring ${tier.name} node(s) ${agent.instance.machineName}`,
      );
      this.phases.set(agent, { phase: 'configuring', detail: WAITING_PLAN_MESSAGE });
      const done = this.rollNode(cluster, tier, agent, configOf(agent), manifest).finally(() => {
        this.inFlight.delete(agent);
        this.phases.delete(agent);
      });
      this.inFlight.set(agent, done);
    }
    this.tierInProgress = { tier, waiting };
    if (this.inFlight.size === 0) {
      // Nothing may start: a machine that failed its probes holds the tier (Rancher waits for it, forever).
      if (unhealthy[0]) this.reportProbes(unhealthy[0]);
      return 'done';
    }
    this.writeTierStatus();
    return 'wait';
  }

  /** The Cluster's message for the tier being rolled (rancher-tiers.ts tierMessage). */
  private writeTierStatus(): void {
    const current = this.tierInProgress;
    if (!current) return;
    const machines = [
      ...current.tier.machines.flatMap((a) => {
        const p = this.phases.get(a);
        return p ? [{ name: a.instance.machineName, ...p }] : [];
      }),
      ...current.waiting.map((a) => ({ name: a.instance.machineName, phase: 'configuring' as const })),
    ];
    const message = tierMessage(current.tier.name, machines);
    if (message) this.writeStatus((p, g, n) => reconcilingStatus(p, g, n, message));
  }

  /** Rancher's init node: the first etcd machine (rke.cattle.io/init-node). */
  private initMachine(): string | undefined {
    return this.options.fleet.all().find((a) => hasRole(a.instance, 'etcd'))?.instance.machineName;
  }

  /**
   * Rancher's message for a node whose probes fail after its plan was applied (pkg/capr/planner store.go
   * probesMessage, reconcile: "configuring <tier> node(s) <machine>: waiting for probes: <names>").
   */
  private reportProbes(agent: NodeAgent): void {
    const failures = probeFailures(agent);
    const message = `configuring ${this.tierNameOf(agent)} node(s) ${agent.instance.machineName}: waiting for probes: ${failures.map((f) => f.component).join(', ')}`;
    this.writeStatus((p, g, n) => reconcilingStatus(p, g, n, message));
    this.options.log(
      `rke2 planner: ${message} (${failures.map((f) => `${f.component}: ${f.log}`).join('; ')})`,
    );
  }

  private currentTiers(): Tier<NodeAgent>[] {
    const spec = this.cluster()?.spec;
    const rkeConfig = isRecord(spec) && isRecord(spec.rkeConfig) ? spec.rkeConfig : {};
    return rancherTiers(this.options.fleet.all(), this.initMachine(), rkeConfig);
  }

  private currentTier(name: Tier<NodeAgent>['name']): Tier<NodeAgent> | undefined {
    return this.currentTiers().find((t) => t.name === name);
  }

  private tierNameOf(agent: NodeAgent): string {
    return this.currentTiers().find((t) => t.machines.includes(agent))?.name ?? 'worker';
  }

  /**
   * One machine's plan, as Rancher and the system-agent carry it out: drain first when the tier's drain
   * options are enabled and the plan's drain hash changes (drain.go drain, shouldDrain; never on a
   * one-machine cluster), then the plan, the probes, and the uncordon (undrain) once it is healthy.
   */
  private async rollNode(
    cluster: KubeObject,
    tier: Tier<NodeAgent>,
    agent: NodeAgent,
    config: NodeConfig,
    manifest: string,
  ): Promise<void> {
    const { clock, rolloutDelayMs } = this.options;
    if (hasRole(agent.instance, 'control-plane') && this.addons.get(agent) !== manifest) {
      this.addons.set(agent, manifest);
      this.applyAdditionalManifest(cluster, manifest);
      if (configKey(agent.runningConfig) === configKey(config)) {
        // Only addons.yaml changed: a Dynamic file, out of the restart stamp and the drain hash (config.go
        // restartStamp, drainHash): the system-agent writes it; no drain, no restart.
        this.options.log(`rke2 planner: ${agent.instance.machineName} applied (addons.yaml only)`);
        await clock.sleep(PROBE_DELAY_MS);
        if (rolloutDelayMs > 0) await clock.sleep(rolloutDelayMs);
        return;
      }
    }
    const before = agent.nodeName;
    const drained = tier.drain.enabled && this.options.fleet.all().length > 1 && before !== undefined;
    if (drained && !(await this.drainMachine(tier, agent, before))) return;
    // With drain disabled Rancher neither cordons nor uncordons: Planner.drain (pkg/capr/planner/drain.go)
    // short-circuits before it sets the drain annotation, and Planner.undrain acts only on that annotation,
    // the one the machine-drain controller cordons and uncordons on (pkg/controllers/capr/machinedrain/
    // machinedrain.go OnChange, unDrain). A node someone else cordoned stays cordoned through the roll.
    this.phases.set(agent, { phase: 'configuring', detail: WAITING_PLAN_MESSAGE });
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
    // The system-agent's probes, a moment after the plan is applied; a node that fails them stays drained.
    await clock.sleep(PROBE_DELAY_MS);
    if (probeFailures(agent).length > 0) return;
    if (drained) {
      this.phases.set(agent, { phase: 'uncordoning', detail: 'waiting for uncordon to finish' });
      this.writeTierStatus();
      this.options.log(`rke2 planner: uncordoning ${tier.name} node ${agent.instance.machineName}`);
      // machinedrain.go unDrain: RunCordonOrUncordon(false) on the machine's node (its nodeRef, which a
      // renamed node has moved to; the old name is uncordoned too, as the node it drained).
      const after = agent.nodeName;
      if (after) uncordon(this.options.downstream, after);
      if (before !== after) uncordon(this.options.downstream, before);
    }
    if (rolloutDelayMs > 0) await clock.sleep(rolloutDelayMs);
  }

  /**
   * Rancher's machine-drain controller (machinedrain.go drain: cordon, then drain.RunNodeDrain); a refused
   * drain is retried until it succeeds, its error on the machine ("error draining machine <m>: ...").
   * False when the planner stopped first.
   */
  private async drainMachine(tier: Tier<NodeAgent>, agent: NodeAgent, node: string): Promise<boolean> {
    const { downstream, clock, log } = this.options;
    this.phases.set(agent, { phase: 'draining', detail: 'draining node' });
    this.writeTierStatus();
    cordon(downstream, node);
    for (;;) {
      if (this.stopped) return false;
      // The planner writes the tier's current options on every pass (drain.go drain: a changed option string
      // is a new drain-options annotation), so a fix to them takes effect on the next try.
      const options = this.currentTier(tier.name)?.drain ?? tier.drain;
      // A drain that runs out of its timeout (a PodDisruptionBudget that never allows the eviction) fails
      // like any refused drain: its error on the machine, and the controller tries again.
      const result = await drainNode(
        { kube: downstream, clock, errOut: (line) => log(`rke2 planner: ${line}`) },
        node,
        options,
      );
      if (this.stopped) return false;
      if (result.ok) {
        log(
          `rke2 planner: drained ${tier.name} node ${agent.instance.machineName} (evicted: ${result.evicted.join(', ') || 'none'})`,
        );
        return true;
      }
      const detail = `error draining machine ${agent.instance.machineName}: ${result.error}`;
      if (this.phases.get(agent)?.detail !== detail) {
        this.phases.set(agent, { phase: 'draining', detail });
        this.writeTierStatus();
        log(`rke2 planner: ${detail}`);
      }
      await clock.sleep(DRAIN_RETRY_MS);
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

/** The system-agent's plan status while a plan is being applied (pkg/capr/planner/store.go). */
const WAITING_PLAN_MESSAGE = 'waiting for plan to be applied';

/** How often the machine-drain controller tries a refused drain again (its requeue). */
const DRAIN_RETRY_MS = 5_000;
