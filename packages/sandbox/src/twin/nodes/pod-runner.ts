import type { Clock } from 'uproot';
import { podNetworkAddress } from '../../aws/index.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { involvedObjectOf } from '../events/event-recorder.js';
import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { ContainerSupervisor, type ContainerSnapshot } from '../managers/container-supervisor.js';
import type { ManagerLauncher } from '../managers/manager-launcher.js';
import { controllerQueue, type WorkQueue } from '../runtime/work-queue.js';
import type { NodeAgent } from './node-agent.js';
import { ccmVersionOf } from './static-pod-set.js';
import type { HostPathVolume } from './node-config.js';
import type { NodeFleet } from './node-fleet.js';
import { runningPodStatus, statusKey } from './pod-status.js';
import { EBS_CSI_NODE_DAEMONSET, podBlockers, type PodBlockers } from './pod-blockers.js';

/**
 * The kubelets' handling of ordinary pods (DaemonSet pods and the like): a pod bound to a node whose kubelet
 * runs is started (status Running, Ready, a pod IP; events Pulled/Created/Started), and a container whose
 * image is the cloud-controller-manager starts a simulated CCM with the container's args, kept running until
 * the pod goes away (deleting the pod stops it).
 */

interface RunningPod {
  readonly uid: string;
  readonly nodeName: string;
  readonly startedAt: number;
  readonly podIp: string;
  /** What keeps it from running (a volume, image pulls), as a comparable key; '' when nothing does. */
  readonly blockKey: string;
  readonly blocked: PodBlockers;
  readonly supervisors: Map<string, ContainerSupervisor>;
  readonly snapshots: Map<string, ContainerSnapshot>;
  lastStatusKey: string;
}

interface ContainerSpec {
  readonly name: string;
  readonly image?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly volumeMounts?: readonly { name: string; mountPath: string }[];
}

export function isCloudControllerImage(image: string | undefined): boolean {
  return typeof image === 'string' && /cloud-controller-manager(:|@|$)/.test(image);
}

function containersOf(pod: KubeObject): ContainerSpec[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.containers) ? (spec.containers as ContainerSpec[]) : [];
}

function hostPathVolumes(pod: KubeObject, container: ContainerSpec): HostPathVolume[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const volumes = Array.isArray(spec.volumes)
    ? (spec.volumes as { name?: string; hostPath?: { path?: string } }[])
    : [];
  const out: HostPathVolume[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = volumes.find((v) => v.name === mount.name);
    if (volume?.hostPath?.path)
      out.push({ name: mount.name, hostPath: volume.hostPath.path, mountPath: mount.mountPath });
  }
  return out;
}

/** A configMap volume mounted into a container: its files are the ConfigMap's keys (items not modelled). */
interface ConfigMapMount {
  readonly configMap: string;
  readonly mountPath: string;
}

function configMapMounts(pod: KubeObject, container: ContainerSpec): ConfigMapMount[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const volumes = Array.isArray(spec.volumes)
    ? (spec.volumes as { name?: string; configMap?: { name?: string } }[])
    : [];
  return (container.volumeMounts ?? []).flatMap((mount) => {
    const name = volumes.find((v) => v.name === mount.name)?.configMap?.name;
    return name ? [{ configMap: name, mountPath: mount.mountPath.replace(/\/$/, '') }] : [];
  });
}

export class PodRunner {
  private readonly queue: WorkQueue<string>;
  private readonly running = new Map<string, RunningPod>();
  private readonly unsubscribes: (() => void)[] = [];
  private readonly podCounters = new Map<string, number>();

  constructor(
    private readonly kube: TwinKube,
    private readonly clock: Clock,
    private readonly fleet: NodeFleet,
    private readonly launcher: ManagerLauncher,
    private readonly events: EventRecorder,
    private readonly log: (line: string) => void,
  ) {
    this.queue = controllerQueue(clock, 'kubelet pod', (key) => this.sync(key), log);
  }

  start(): void {
    this.unsubscribes.push(
      this.kube.watch(R.pods, (event) => {
        const meta = metaOf(event.object);
        // Mirror pods belong to their node agent's static pods.
        if (meta.annotations?.['kubernetes.io/config.mirror']) return;
        const key = `${event.namespace}/${meta.name ?? ''}`;
        if (event.type === 'DELETED' || (isRecord(event.object.spec) && event.object.spec.nodeName))
          this.queue.add(key);
      }),
      // Installing the EBS CSI driver lets stuck volumes attach.
      this.kube.watch(R.daemonsets, (event) => {
        if (metaOf(event.object).name !== EBS_CSI_NODE_DAEMONSET) return;
        for (const [key, r] of this.running) if (r.blocked.attach) this.queue.add(key);
      }),
      this.fleet.onKubeletStart((nodeName) => {
        for (const pod of this.kube.list(R.pods, { fieldSelector: `spec.nodeName=${nodeName}` })) {
          if (!metaOf(pod).annotations?.['kubernetes.io/config.mirror'])
            this.queue.add(`${metaOf(pod).namespace}/${metaOf(pod).name}`);
        }
        // Containers of pods bound to a name this machine no longer uses are killed.
        for (const [key, running] of this.running) {
          const agent = this.fleet.agentFor(running.nodeName);
          if (!agent || agent.nodeName !== running.nodeName) this.queue.add(key);
        }
      }),
    );
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribes) u();
    this.queue.close();
    await Promise.all(
      [...this.running.values()].flatMap((r) => [...r.supervisors.values()].map((s) => s.stop())),
    );
    this.running.clear();
  }

  /** The supervised containers of running pods (for status and tests). */
  managers(): {
    pod: string;
    nodeName: string;
    identity: string | undefined;
    state: string;
    restarts: number;
  }[] {
    const out: {
      pod: string;
      nodeName: string;
      identity: string | undefined;
      state: string;
      restarts: number;
    }[] = [];
    for (const [key, r] of this.running) {
      for (const s of r.supervisors.values()) {
        const c = s.current;
        out.push({
          pod: key,
          nodeName: r.nodeName,
          identity: s.identity,
          state: c.state.type === 'waiting' ? c.state.reason : c.state.type,
          restarts: c.restartCount,
        });
      }
    }
    return out;
  }

  private sync(key: string): void {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pod = this.kube.get(R.pods, namespace, name);
    const running = this.running.get(key);
    const nodeName =
      pod && isRecord(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : undefined;
    const agent = nodeName ? this.fleet.agentFor(nodeName) : undefined;
    // The machine still answers to the pod's node name; its kubelet may be restarting (or failing to start).
    const onItsNode = agent !== undefined && agent.nodeName === nodeName;
    const alive = onItsNode && agent.running;
    const unblocked =
      running && pod && agent && alive && podBlockers(this.kube, pod, agent).key !== running.blockKey;
    // A kubelet (or rke2-server/agent) restart leaves running containers alone: containerd and its shims keep
    // them (rancher/rke2 discussion #8665: stopping containerd or the kubelet does not stop running containers;
    // only bundle/bin/rke2-killall.sh kills the shims). So only a gone pod or a machine no longer under that
    // name stops them here, not a kubelet that is down.
    if (
      running &&
      (!pod || metaOf(pod).uid !== running.uid || metaOf(pod).deletionTimestamp || !onItsNode || unblocked)
    ) {
      this.running.delete(key);
      // The kill is not awaited: the pod is gone for the API at once; the process winds down on its own.
      for (const s of running.supervisors.values()) void s.stop();
      if (pod && metaOf(pod).deletionTimestamp && metaOf(pod).uid === running.uid)
        this.kube.delete(R.pods, namespace, name);
    }
    if (!pod || !nodeName || !agent || !alive || metaOf(pod).deletionTimestamp) return;
    if (!this.running.has(key)) this.startPod(key, pod, agent);
    this.writeStatus(key);
  }

  private startPod(key: string, pod: KubeObject, agent: NodeAgent): void {
    const nodeName = agent.nodeName!;
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const index = agent.instance.index;
    const n = (this.podCounters.get(nodeName) ?? 1) + 1;
    this.podCounters.set(nodeName, n > 250 ? 2 : n);
    const podIp =
      spec.hostNetwork === true ? agent.instance.privateIp : `10.${42 + (index >> 8)}.${index & 255}.${n}`;
    const blocked = podBlockers(this.kube, pod, agent);
    const running: RunningPod = {
      uid: metaOf(pod).uid ?? '',
      nodeName,
      startedAt: this.clock.now(),
      podIp,
      blockKey: blocked.key,
      blocked,
      supervisors: new Map(),
      snapshots: new Map(),
      lastStatusKey: '',
    };
    this.running.set(key, running);
    const source = { component: 'kubelet', host: nodeName };
    if (blocked.attach) {
      this.reportAttachFailure(pod, blocked.attach, source, running);
      return;
    }
    for (const container of containersOf(pod)) {
      const ref = involvedObjectOf(pod, `spec.containers{${container.name}}`);
      const pullError = blocked.pulls.get(container.name);
      if (pullError) {
        this.reportPullFailure(ref, container.image ?? '', pullError, source);
        running.snapshots.set(container.name, {
          state: {
            type: 'waiting',
            reason: 'ImagePullBackOff',
            message: `Back-off pulling image "${container.image ?? ''}"`,
          },
          restartCount: 0,
          lastTermination: undefined,
          identity: undefined,
        });
        continue;
      }
      this.events.record(
        ref,
        'Normal',
        'Pulled',
        `Container image "${container.image ?? ''}" already present on machine`,
        source,
      );
      this.events.record(ref, 'Normal', 'Created', `Created container ${container.name}`, source);
      this.events.record(ref, 'Normal', 'Started', `Started container ${container.name}`, source);
      if (!isCloudControllerImage(container.image)) continue;
      const volumes = hostPathVolumes(pod, container);
      const launch = {
        component: 'cloud-controller-manager' as const,
        nodeName,
        instanceId: agent.instance.instanceId,
        role: agent.instance.role,
        ...(spec.hostNetwork === true ? {} : { podNetworkAddress: podNetworkAddress(agent.instance.index) }),
        args: [...(container.command ?? []).slice(1), ...(container.args ?? [])],
        kubernetesVersion: ccmVersionOf(container.image ?? ''),
        readFile: this.readFileFor(
          metaOf(pod).namespace ?? 'default',
          configMapMounts(pod, container),
          agent.readFileFor(volumes),
        ),
        log: (line: string) => this.log(`${key}: ${line}`),
      };
      const supervisor = new ContainerSupervisor(this.clock, () => this.launcher(launch), {
        onChange: (snapshot) => {
          running.snapshots.set(container.name, snapshot);
          if (this.running.get(key) === running) this.writeStatus(key);
        },
        onBackOff: (exit) => {
          this.log(`${key} exited ${exit.code}: ${exit.reason}`);
          this.events.record(
            ref,
            'Warning',
            'BackOff',
            `Back-off restarting failed container ${container.name} in pod ${metaOf(pod).name}_${metaOf(pod).namespace}(${metaOf(pod).uid})`,
            source,
          );
        },
        onError: (error) => this.log(`${key}: ${error instanceof Error ? error.message : String(error)}`),
      });
      running.supervisors.set(container.name, supervisor);
      supervisor.start();
    }
  }

  /** The kubelet's events for an image it cannot pull (kuberuntime_image.go, image pull back-off). */
  private reportPullFailure(
    ref: ReturnType<typeof involvedObjectOf>,
    image: string,
    error: string,
    source: { component: string; host: string },
  ): void {
    this.events.record(ref, 'Normal', 'Pulling', `Pulling image "${image}"`, source);
    this.events.record(ref, 'Warning', 'Failed', `Failed to pull image "${image}": ${error}`, source);
    this.events.record(ref, 'Warning', 'Failed', 'Error: ErrImagePull', source);
    this.events.record(ref, 'Normal', 'BackOff', `Back-off pulling image "${image}"`, source);
    this.events.record(ref, 'Warning', 'Failed', 'Error: ImagePullBackOff', source);
  }

  /**
   * A volume the attach-detach controller cannot attach: its FailedAttachVolume event, the kubelet's
   * FailedMount (volumemanager: "Unable to attach or mount volumes: unmounted volumes=[…], unattached
   * volumes=[…]: timed out waiting for the condition"), and containers that never get created.
   */
  private reportAttachFailure(
    pod: KubeObject,
    attach: NonNullable<PodBlockers['attach']>,
    source: { component: string; host: string },
    running: RunningPod,
  ): void {
    const ref = involvedObjectOf(pod);
    this.events.record(ref, 'Warning', 'FailedAttachVolume', attach.error, {
      component: 'attachdetach-controller',
    });
    const token = `kube-api-access-${(metaOf(pod).uid ?? 'xxxxx').replace(/-/g, '').slice(0, 5)}`;
    this.events.record(
      ref,
      'Warning',
      'FailedMount',
      `Unable to attach or mount volumes: unmounted volumes=[${attach.volume}], unattached volumes=[${attach.volume} ${token}]: timed out waiting for the condition`,
      source,
    );
    for (const container of containersOf(pod)) {
      running.snapshots.set(container.name, {
        state: { type: 'waiting', reason: 'ContainerCreating' },
        restartCount: 0,
        lastTermination: undefined,
        identity: undefined,
      });
    }
  }

  /**
   * A file under a configMap mount is the ConfigMap's key as it is when read (the kubelet projects the keys
   * as files, kubernetes/kubernetes pkg/volume/configmap); a missing ConfigMap or key reads as ENOENT.
   * Other paths go to the node's hostPath volumes.
   */
  private readFileFor(
    namespace: string,
    mounts: readonly ConfigMapMount[],
    hostPath: (path: string) => Promise<string>,
  ): (path: string) => Promise<string> {
    return (path) => {
      const mount = mounts.find((m) => path.startsWith(`${m.mountPath}/`));
      if (!mount) return hostPath(path);
      const data = this.kube.get(R.configmaps, namespace, mount.configMap)?.data;
      const value = isRecord(data) ? data[path.slice(mount.mountPath.length + 1)] : undefined;
      if (typeof value === 'string') return Promise.resolve(value);
      return Promise.reject(
        Object.assign(new Error(`open ${path}: no such file or directory`), { code: 'ENOENT' }),
      );
    };
  }

  private writeStatus(key: string): void {
    const running = this.running.get(key);
    if (!running) return;
    const slash = key.indexOf('/');
    const agent = this.fleet.agentFor(running.nodeName);
    this.kube.mutateStatus(R.pods, key.slice(0, slash), key.slice(slash + 1), (draft) => {
      if (metaOf(draft).uid !== running.uid) return undefined;
      const status = runningPodStatus({
        pod: draft,
        hostIp: agent?.instance.privateIp ?? '',
        podIp: running.blocked.attach ? undefined : running.podIp,
        now: this.clock.now(),
        startedAt: running.startedAt,
        containers: running.snapshots,
        pending: running.blocked.key !== '',
      });
      const k = statusKey(status);
      if (k === running.lastStatusKey && statusKey((draft.status ?? {}) as Record<string, unknown>) === k)
        return undefined;
      running.lastStatusKey = k;
      draft.status = status;
      return draft;
    });
  }
}
