import type { Clock } from 'uproot';
import { imageTag, parseKubernetesVersion, type KubernetesVersion } from 'uproot/core';
import type { EventRecorder } from '../events/event-recorder.js';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { clone, kubeTime, metaOf } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { ContainerSupervisor, type ContainerSnapshot } from '../managers/container-supervisor.js';
import type { ManagerComponent, ManagerLauncher, ManagerProcess } from '../managers/manager-launcher.js';
import { startApiserverProcess } from '../components/apiserver-process.js';
import { isRke2CloudProviderImage, startRke2CloudController } from '../components/rke2-cloud-controller.js';
import { kubernetesVersionOfImage } from '../layout/versions.js';
import { configKey, flagsOf, type StaticPodConfig } from './node-config.js';
import { runningPodStatus, statusKey } from './pod-status.js';
import { mirrorPodObject, staticPodName } from './static-pods.js';

/**
 * The static pods one kubelet runs: a mirror pod in the API for each (`<component>-<node>`), and for the
 * controller managers a supervised simulated process, restarted with back-off when it exits. The pod's
 * status follows the process (Running, CrashLoopBackOff, restart count, last termination).
 */

export interface StaticPodSetDeps {
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly launcher: ManagerLauncher;
  readonly instance: () => InstanceLayout;
  readonly log: (line: string) => void;
  /** Maps a container path to the node's file through the pod's hostPath volumes. */
  readonly readFileFor: (volumes: StaticPodConfig['volumes']) => (path: string) => Promise<string>;
  /** The node's Kubernetes version (the KCM's). */
  readonly kubeVersion: () => string | undefined;
}

interface RunningStaticPod {
  readonly config: StaticPodConfig;
  readonly key: string;
  readonly nodeName: string;
  readonly startedAt: number;
  supervisor: ContainerSupervisor | undefined;
  lastStatusKey: string;
}

function managerComponent(pod: StaticPodConfig): ManagerComponent | undefined {
  return pod.component === 'kube-controller-manager' || pod.component === 'cloud-controller-manager'
    ? pod.component
    : undefined;
}

export class StaticPodSet {
  private readonly pods = new Map<string, RunningStaticPod>();

  constructor(private readonly deps: StaticPodSetDeps) {}

  components(): string[] {
    return [...this.pods.keys()];
  }

  /** The running definition of a component, to tell whether a new one differs. */
  keyOf(component: string): string | undefined {
    return this.pods.get(component)?.key;
  }

  managers(): { component: string; identity: string | undefined; state: string; restarts: number }[] {
    const out: { component: string; identity: string | undefined; state: string; restarts: number }[] = [];
    for (const [component, pod] of this.pods) {
      const s = pod.supervisor?.current;
      if (!s) continue;
      out.push({
        component,
        identity: pod.supervisor?.identity,
        state: s.state.type === 'waiting' ? s.state.reason : s.state.type,
        restarts: s.restartCount,
      });
    }
    return out;
  }

  /** Each static pod's image and whether its container runs now (not waiting in a crash-loop back-off). */
  containers(): { component: string; image: string; running: boolean; message: string | undefined }[] {
    return [...this.pods.entries()].map(([component, pod]) => {
      const snapshot = pod.supervisor?.current;
      return {
        component,
        image: pod.config.image,
        running: snapshot?.state.type === 'running',
        message: snapshot?.lastTermination?.message,
      };
    });
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.pods.values()].map((p) => p.supervisor?.stop()));
    this.pods.clear();
  }

  start(pod: StaticPodConfig, name: string): void {
    const { kube, clock, events } = this.deps;
    const startedAt = clock.now();
    const running: RunningStaticPod = {
      config: pod,
      key: configKey(pod),
      nodeName: name,
      startedAt,
      supervisor: undefined,
      lastStatusKey: '',
    };
    this.pods.set(pod.component, running);
    if (pod.mirror) {
      const nodeUid = metaOf(kube.get(R.nodes, undefined, name)).uid;
      kube.delete(R.pods, 'kube-system', staticPodName(pod.component, name));
      kube.create(R.pods, mirrorPodObject(pod, name, nodeUid, kubeTime(startedAt)));
      this.writeStatus(running, undefined);
    }
    const podName = staticPodName(pod.component, name);
    const startProcess = this.processFor(pod, name, podName);
    if (!startProcess) return;
    const supervisor = new ContainerSupervisor(clock, startProcess, {
      onChange: (snapshot) => this.writeStatus(running, snapshot),
      onBackOff: (exit) => {
        this.deps.log(`${podName} exited ${exit.code}: ${exit.reason}`);
        if (!pod.mirror) return;
        events.record(
          {
            kind: 'Pod',
            namespace: 'kube-system',
            name: podName,
            fieldPath: `spec.containers{${pod.component}}`,
          },
          'Warning',
          'BackOff',
          `Back-off restarting failed container ${pod.component} in pod ${podName}_kube-system`,
          { component: 'kubelet', host: name },
        );
      },
      onError: (error) =>
        this.deps.log(`${podName}: ${error instanceof Error ? error.message : String(error)}`),
    });
    running.supervisor = supervisor;
    supervisor.start();
  }

  /**
   * What the container runs: a simulated KCM or AWS CCM (the launcher), RKE2's built-in cloud controller, or a
   * kube-apiserver instance that only checks its flags for its version. Versions come from the image tag.
   */
  private processFor(
    pod: StaticPodConfig,
    nodeName: string,
    podName: string,
  ): (() => Promise<ManagerProcess>) | undefined {
    const { clock, kube } = this.deps;
    const instance = this.deps.instance();
    const log = (line: string): void => this.deps.log(`${podName}: ${line}`);
    if (pod.component === 'kube-apiserver') {
      const version = kubernetesVersionOfImage(pod.image);
      return () =>
        Promise.resolve(startApiserverProcess({ identity: podName, version, args: flagsOf(pod), log }));
    }
    if (pod.component === 'cloud-controller-manager' && isRke2CloudProviderImage(pod.image)) {
      return () => Promise.resolve(startRke2CloudController({ identity: podName, kube, clock, log }));
    }
    const component = managerComponent(pod);
    if (!component) return undefined;
    const launch = {
      component,
      nodeName,
      instanceId: instance.instanceId,
      role: instance.role,
      args: flagsOf(pod),
      kubernetesVersion:
        component === 'cloud-controller-manager'
          ? ccmVersionOf(pod.image)
          : kubeVersionOf(pod.image, this.deps.kubeVersion()),
      readFile: withHostFiles(pod.files, this.deps.readFileFor(pod.volumes)),
      log,
    };
    return () => this.deps.launcher(launch);
  }

  async stop(component: string): Promise<void> {
    const running = this.pods.get(component);
    if (!running) return;
    this.pods.delete(component);
    await running.supervisor?.stop();
    if (running.config.mirror)
      this.deps.kube.delete(R.pods, 'kube-system', staticPodName(component, running.nodeName));
  }

  private writeStatus(running: RunningStaticPod, snapshot: ContainerSnapshot | undefined): void {
    if (!running.config.mirror || this.pods.get(running.config.component) !== running) return;
    const { clock } = this.deps;
    const instance = this.deps.instance();
    const containers = new Map<string, ContainerSnapshot>();
    if (snapshot) containers.set(running.config.component, snapshot);
    this.deps.kube.mutateStatus(
      R.pods,
      'kube-system',
      staticPodName(running.config.component, running.nodeName),
      (draft) => {
        const status = runningPodStatus({
          pod: draft,
          hostIp: instance.privateIp,
          podIp: instance.privateIp,
          now: clock.now(),
          startedAt: running.startedAt,
          containers,
        });
        const key = statusKey(status);
        if (key === running.lastStatusKey) return undefined;
        running.lastStatusKey = key;
        draft.status = status;
        return clone(draft);
      },
    );
  }
}

/** The CCM's Kubernetes version is its image tag's minor (`…/cloud-controller-manager:v1.26.11` → 1.26). */
export function ccmVersionOf(image: string): KubernetesVersion {
  try {
    return parseKubernetesVersion(imageTag(image) ?? '', 'image');
  } catch {
    return parseKubernetesVersion('v1.35.0', 'image');
  }
}

/** A KCM's version is its image tag's (a kubeadm upgrade changes the tag before the kubelet). */
function kubeVersionOf(image: string, kubelet: string | undefined): KubernetesVersion {
  try {
    return kubernetesVersionOfImage(image) ?? parseKubernetesVersion(kubelet ?? 'v1.26.0', 'version');
  } catch {
    return parseKubernetesVersion('v1.26.0', 'version');
  }
}

/** The host files the distribution wrote for the component first, then its hostPath volumes. */
function withHostFiles(
  files: Readonly<Record<string, string>> | undefined,
  read: (path: string) => Promise<string>,
): (path: string) => Promise<string> {
  return (path) => {
    const text = files?.[path];
    return text === undefined ? read(path) : Promise.resolve(text);
  };
}
