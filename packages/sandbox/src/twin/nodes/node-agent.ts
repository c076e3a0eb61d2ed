import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { Clock } from 'uproot';
import type { EventRecorder } from '../events/event-recorder.js';
import { nodeReference } from '../events/event-recorder.js';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { metaOf, microTime, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import type { ManagerLauncher } from '../managers/manager-launcher.js';
import { configKey, type NodeConfig, type StaticPodConfig } from './node-config.js';
import { kubeletNodeName } from './node-name.js';
import {
  newNodeObject,
  nodeStatus,
  providerIdFor,
  registrationLabels,
  type NodeRuntimeInfo,
} from './node-object.js';
import { StaticPodSet } from './static-pod-set.js';
import { RestartCounter } from './restart-count.js';
import { readInstanceMetadata, withMetadata } from './instance-metadata.js';
import {
  kubeletStartFailure,
  parseKubernetesVersion,
  type KubernetesVersion,
  type StartFailure,
} from 'uproot/core';

function tryVersion(raw: string): KubernetesVersion | undefined {
  try {
    return parseKubernetesVersion(raw, 'kubeletVersion');
  } catch {
    return undefined;
  }
}

/**
 * A simulated machine's kubelet: registers the Node under the distribution's naming rules, posts its status
 * and renews its Lease (driven by the fleet), and runs the static pods of its configuration, starting a
 * simulated controller manager for kube-controller-manager / cloud-controller-manager pods and restarting
 * it when it exits. `apply` takes a new configuration the way RKE2's supervisor, `rke up` or a kubeadm
 * kubelet watching its manifests would: only what changed restarts.
 */

export interface NodeAgentDeps {
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly region: string;
  readonly runtime: NodeRuntimeInfo;
  readonly launcher: ManagerLauncher;
  /** The machine's folder (`DIR/nodes/<node>`): hostPath volumes read from here. */
  readonly nodeDir: string | undefined;
  readonly log: (line: string) => void;
  /** How long a component takes to come back after a restart. */
  readonly restartDelayMs: number;
  readonly podCidr: string;
  /** Called when the kubelet has (re)registered, so pods bound to the node are looked at again. */
  readonly onKubeletStart: (nodeName: string) => void;
  /** The instance's IMDS endpoint (`…/_instance/<id>/`); the layout's values are used when absent. */
  readonly imdsEndpoint?: string;
}

const LEASE_SECONDS = 40;

/** The node lifecycle controller's mark on a node whose Lease went stale. */
function readyUnknown(node: KubeObject | undefined): boolean {
  const status = (node?.status ?? {}) as { conditions?: { type?: string; status?: string }[] };
  return (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'Unknown');
}
const STATUS_REPORT_MS = 5 * 60_000;

export class NodeAgent {
  private config: NodeConfig | undefined;
  private kubeletError: StartFailure | undefined;
  private currentName: string | undefined;
  private up = false;
  private renewedAt = 0;
  private readySince = 0;
  private statusPostedAt = 0;
  private readonly staticPods: StaticPodSet;
  /** Names this machine registered under before (renamed nodes stop heartbeating but stay in the API). */
  readonly previousNames: string[] = [];
  /** Every restart of this machine's Kubernetes processes for a change applied to it (restart-count.ts). */
  readonly restartCounts = new RestartCounter();

  private machine: InstanceLayout;

  constructor(
    instance: InstanceLayout,
    private readonly deps: NodeAgentDeps,
  ) {
    this.machine = instance;
    this.staticPods = new StaticPodSet({
      kube: deps.kube,
      clock: deps.clock,
      events: deps.events,
      launcher: deps.launcher,
      instance: () => this.machine,
      log: deps.log,
      readFileFor: (volumes) => this.readFileFor(volumes),
      kubeVersion: () => this.config?.kubelet.version,
    });
  }

  /** The machine as it knows itself (its instance metadata, once read). */
  get instance(): InstanceLayout {
    return this.machine;
  }

  /** Reads the instance's metadata from IMDS, as a booting machine does. */
  async readMetadata(): Promise<void> {
    if (!this.deps.imdsEndpoint) return;
    this.machine = withMetadata(
      this.machine,
      await readInstanceMetadata(this.deps.imdsEndpoint, this.deps.clock),
    );
  }

  get nodeName(): string | undefined {
    return this.currentName;
  }

  get running(): boolean {
    return this.up;
  }

  get lastRenew(): number {
    return this.renewedAt;
  }

  get runningConfig(): NodeConfig | undefined {
    return this.config;
  }

  /** The supervised manager containers of this node's static pods. */
  managers(): { component: string; identity: string | undefined; state: string; restarts: number }[] {
    return this.staticPods.managers();
  }

  /** `status.nodeInfo.containerRuntimeVersion` of the machine (`containerd://1.7.11-k3s2`). */
  get containerRuntimeVersion(): string {
    return this.deps.runtime.containerRuntimeVersion;
  }

  /** Why the kubelet cannot start with its current configuration (it exits and is restarted in vain). */
  get kubeletFailure(): StartFailure | undefined {
    return this.kubeletError;
  }

  /** Each static pod's image and whether its container runs (for Rancher's probes and `/version`). */
  components(): { component: string; image: string; running: boolean; message: string | undefined }[] {
    return this.staticPods.containers();
  }

  /** First boot of the machine. */
  async boot(config: NodeConfig): Promise<void> {
    this.config = config;
    if (!this.startKubelet(config, true)) return;
    for (const pod of config.staticPods) this.startStaticPod(pod);
  }

  /**
   * Applies a new configuration: restarts the kubelet when its flags or version changed, then every static
   * pod whose definition changed (stop, wait the restart delay, start). Resolves once the node is Ready again.
   */
  async apply(
    next: NodeConfig,
  ): Promise<{ kubeletRestarted: boolean; restartedPods: string[]; kubeletError?: string }> {
    const previous = this.config;
    this.config = next;
    const kubeletChanged =
      !previous ||
      configKey(previous.kubelet) !== configKey(next.kubelet) ||
      configKey(previous.labels) !== configKey(next.labels) ||
      configKey(previous.annotations) !== configKey(next.annotations);
    const oldName = this.currentName;
    if (kubeletChanged) {
      if (previous) this.restartCounts.note('kubelet');
      this.up = false;
      this.deps.log(`${this.instance.machineName}: restarting kubelet (${next.kubelet.args.join(' ')})`);
      await this.deps.clock.sleep(this.deps.restartDelayMs);
      this.startKubelet(next, false);
    }
    if (this.kubeletError) {
      // No kubelet, nothing syncs the static pods: the containers it started keep running as they were.
      return { kubeletRestarted: kubeletChanged, restartedPods: [], kubeletError: this.kubeletError.error };
    }
    const renamed = oldName !== undefined && oldName !== this.currentName;
    const restartedPods: string[] = [];
    const wanted = new Map(next.staticPods.map((p) => [p.component, p]));
    for (const component of this.staticPods.components()) {
      const desired = wanted.get(component as StaticPodConfig['component']);
      if (!desired) {
        await this.staticPods.stop(component);
        restartedPods.push(component);
      } else if (renamed || configKey(desired) !== this.staticPods.keyOf(component)) {
        // The old pod ends before the new one starts: the kubelet starts a static pod only once the previous
        // pod of the same full name has terminated (kubernetes pkg/kubelet/pod_workers.go allowStaticPodStart).
        await this.staticPods.stop(component);
        await this.deps.clock.sleep(this.deps.restartDelayMs);
        this.startStaticPod(desired);
        this.restartCounts.note(component);
        restartedPods.push(component);
      }
    }
    for (const pod of next.staticPods) {
      if (this.staticPods.keyOf(pod.component) === undefined) {
        this.startStaticPod(pod);
        restartedPods.push(pod.component);
      }
    }
    return { kubeletRestarted: kubeletChanged, restartedPods };
  }

  /** Renews the node Lease; posts node status when it is due (every 5 min, as with node leases). */
  heartbeat(): void {
    if (!this.up || !this.currentName || !this.config) return;
    const now = this.deps.clock.now();
    const name = this.currentName;
    this.renewedAt = now;
    const renewed = this.deps.kube.mutate(R.leases, 'kube-node-lease', name, (lease) => {
      (lease.spec as Record<string, unknown>).renewTime = microTime(now);
      return lease;
    });
    // Someone deleted the Lease: the kubelet creates it again.
    if (!renewed) this.ensureLease(name, metaOf(this.deps.kube.get(R.nodes, undefined, name)).uid);
    // kubelet_node_status.go: the status is posted when the API's copy differs (the node controller set
    // Ready Unknown while this kubelet could not reach it), else every 5 min.
    if (
      now - this.statusPostedAt >= STATUS_REPORT_MS ||
      readyUnknown(this.deps.kube.get(R.nodes, undefined, name))
    )
      this.postStatus();
  }

  /** Stops every container without touching the API (the twin shutting down). */
  async shutdown(): Promise<void> {
    this.up = false;
    await this.staticPods.stopAll();
  }

  /** The containers this kubelet runs for a pod it does not own (DaemonSet pods use the pod runner). */
  readFileFor(volumes: StaticPodConfig['volumes']): (path: string) => Promise<string> {
    return async (path) => {
      const mount = volumes
        .filter((v) => path === v.mountPath || path.startsWith(`${v.mountPath.replace(/\/$/, '')}/`))
        .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
      if (!mount || !this.deps.nodeDir) {
        throw Object.assign(new Error(`open ${path}: no such file or directory`), { code: 'ENOENT' });
      }
      const hostPath = mount.hostPath + path.slice(mount.mountPath.length);
      return readFile(join(this.deps.nodeDir, hostPath), 'utf8');
    };
  }

  /** Starts the kubelet, unless its version refuses its flags; false when it exits at once. */
  private startKubelet(config: NodeConfig, firstBoot: boolean): boolean {
    const version = tryVersion(config.kubelet.version);
    const failure = version ? kubeletStartFailure(version, config.kubelet.args) : undefined;
    this.kubeletError = failure;
    if (failure) {
      this.up = false;
      this.deps.log(`${this.instance.machineName}: kubelet ${config.kubelet.version}: ${failure.log}`);
      return false;
    }
    this.register(config, firstBoot);
    return true;
  }

  private register(config: NodeConfig, firstBoot: boolean): void {
    const { kube, clock, events } = this.deps;
    const name = kubeletNodeName(config.kubelet, this.instance);
    if (this.currentName && this.currentName !== name) this.previousNames.push(this.currentName);
    this.currentName = name;
    const now = clock.now();
    const source = { component: 'kubelet', host: name };
    const ref = nodeReference(name);
    const existing = kube.get(R.nodes, undefined, name);
    let nodeUid: string | undefined;
    if (!existing) {
      const created = kube.create(
        R.nodes,
        newNodeObject({
          name,
          instance: this.instance,
          region: this.deps.region,
          config,
          runtime: this.deps.runtime,
          podCidr: this.deps.podCidr,
        }),
      );
      nodeUid = metaOf(created).uid;
    } else {
      const updated = kube.mutate(R.nodes, undefined, name, (draft) => {
        const meta = metaOf(draft);
        meta.labels = {
          ...(meta.labels ?? {}),
          ...registrationLabels({ name, instance: this.instance, region: this.deps.region, config }),
        };
        meta.annotations = { ...(meta.annotations ?? {}), ...config.annotations };
        const spec = (draft.spec ?? {}) as Record<string, unknown>;
        // An in-tree kubelet fills an empty providerID; nothing ever changes one that is set.
        if (config.kubelet.cloudProvider === 'aws' && !spec.providerID)
          spec.providerID = providerIdFor(this.instance);
        draft.spec = spec;
        return draft;
      });
      nodeUid = metaOf(updated).uid;
    }
    this.readySince = now;
    this.up = true;
    this.postStatus();
    this.ensureLease(name, nodeUid);
    this.renewedAt = now;
    events.record(ref, 'Normal', 'Starting', 'Starting kubelet.', source);
    events.record(
      ref,
      'Normal',
      'NodeAllocatableEnforced',
      'Updated Node Allocatable limit across pods',
      source,
    );
    if (!existing || firstBoot) {
      for (const reason of [
        'NodeHasSufficientMemory',
        'NodeHasNoDiskPressure',
        'NodeHasSufficientPID',
        'NodeReady',
      ]) {
        events.record(ref, 'Normal', reason, `Node ${name} status is now: ${reason}`, source);
      }
    }
    this.deps.onKubeletStart(name);
  }

  private postStatus(): void {
    const name = this.currentName;
    const config = this.config;
    if (!name || !config) return;
    const now = this.deps.clock.now();
    this.statusPostedAt = now;
    this.deps.kube.mutateStatus(R.nodes, undefined, name, (draft) => {
      const previous = (draft.status ?? {}) as Record<string, unknown>;
      draft.status = {
        ...previous,
        ...nodeStatus(
          {
            name,
            instance: this.instance,
            config,
            runtime: this.deps.runtime,
            now,
            readySince: this.readySince,
            ready: true,
          },
          previous.addresses,
        ),
      };
      return draft;
    });
  }

  private ensureLease(name: string, nodeUid: string | undefined): KubeObject {
    const now = this.deps.clock.now();
    return this.deps.kube.ensure(R.leases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name,
        namespace: 'kube-node-lease',
        ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: nodeUid }] } : {}),
      },
      spec: { holderIdentity: name, leaseDurationSeconds: LEASE_SECONDS, renewTime: microTime(now) },
    });
  }

  private startStaticPod(pod: StaticPodConfig): void {
    if (this.currentName) this.staticPods.start(pod, this.currentName);
  }
}
