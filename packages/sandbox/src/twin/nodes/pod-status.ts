import { imageName, tryParseImageReference } from 'uproot/core';
import type { ContainerSnapshot } from '../managers/container-supervisor.js';
import { kubeTime, type KubeObject } from '../kube/kube-types.js';

/** Pod status as a kubelet reports it for a pod whose containers it runs. */

export interface PodStatusInput {
  readonly pod: KubeObject;
  readonly hostIp: string;
  readonly podIp: string | undefined;
  readonly now: number;
  /** When the pod started on this node. */
  readonly startedAt: number;
  /** Per container name: the supervised state; absent means a plain container that simply runs. */
  readonly containers: ReadonlyMap<string, ContainerSnapshot>;
  /** Some container never started (its image cannot be pulled, a volume cannot be attached): phase Pending. */
  readonly pending?: boolean;
}

interface ContainerSpec {
  readonly name: string;
  readonly image?: string;
}

/**
 * The imageID a kubelet reports: the repository name and the digest of what it runs (the reference's own when
 * it pins one; else one made from the pod's uid, there being no registry to pull from).
 */
function imageIdOf(image: string, uid: string): string {
  const ref = tryParseImageReference(image);
  const digest = ref?.digest ?? `sha256:${uid.padEnd(64, '0').slice(0, 64)}`;
  return `${ref ? imageName(ref) : image}@${digest}`;
}

function containersOf(pod: KubeObject): ContainerSpec[] {
  const spec = pod.spec as { containers?: ContainerSpec[] } | undefined;
  return Array.isArray(spec?.containers) ? spec.containers : [];
}

function stateJson(snapshot: ContainerSnapshot | undefined, startedAt: number): Record<string, unknown> {
  const state = snapshot?.state ?? { type: 'running', startedAt };
  switch (state.type) {
    case 'running':
      return { running: { startedAt: kubeTime(state.startedAt) } };
    case 'waiting':
      return { waiting: { reason: state.reason, ...(state.message ? { message: state.message } : {}) } };
    case 'terminated':
      return {
        terminated: {
          exitCode: state.exitCode,
          reason: state.reason,
          finishedAt: kubeTime(state.finishedAt),
        },
      };
  }
}

export function runningPodStatus(input: PodStatusInput): Record<string, unknown> {
  const { pod, now, startedAt } = input;
  const uid = (pod.metadata?.uid ?? '').replace(/-/g, '');
  const statuses = containersOf(pod).map((c, i) => {
    const snapshot = input.containers.get(c.name);
    const running = (snapshot?.state.type ?? 'running') === 'running';
    const last = snapshot?.lastTermination;
    return {
      name: c.name,
      image: c.image ?? '',
      imageID: imageIdOf(c.image ?? '', uid),
      containerID:
        `containerd://${uid}${String(i).padStart(2, '0')}${String(snapshot?.restartCount ?? 0).padStart(4, '0')}`.slice(
          0,
          77,
        ),
      ready: running,
      started: running,
      restartCount: snapshot?.restartCount ?? 0,
      state: stateJson(snapshot, startedAt),
      lastState: last
        ? {
            terminated: {
              exitCode: last.exitCode,
              reason: last.reason,
              message: last.message,
              startedAt: kubeTime(last.startedAt),
              finishedAt: kubeTime(last.finishedAt),
            },
          }
        : {},
    };
  });
  const allReady = statuses.every((s) => s.ready);
  const at = kubeTime(startedAt);
  const readyAt = kubeTime(now);
  return {
    phase: input.pending ? 'Pending' : 'Running',
    conditions: [
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: at },
      {
        type: 'Ready',
        status: allReady ? 'True' : 'False',
        lastProbeTime: null,
        lastTransitionTime: readyAt,
        ...(allReady ? {} : { reason: 'ContainersNotReady' }),
      },
      {
        type: 'ContainersReady',
        status: allReady ? 'True' : 'False',
        lastProbeTime: null,
        lastTransitionTime: readyAt,
        ...(allReady ? {} : { reason: 'ContainersNotReady' }),
      },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: at },
    ],
    hostIP: input.hostIp,
    hostIPs: [{ ip: input.hostIp }],
    // No IP before the pod's sandbox exists (its volumes are not mounted yet).
    ...(input.podIp === undefined ? {} : { podIP: input.podIp, podIPs: [{ ip: input.podIp }] }),
    startTime: at,
    qosClass: 'Burstable',
    containerStatuses: statuses,
  };
}

/** Whether a pod's Ready condition is True (what the DaemonSet controller counts). */
export function isPodReady(pod: KubeObject): boolean {
  const conditions =
    (pod.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The Ready condition's status comparison without timestamps (to skip no-op status writes). */
export function statusKey(status: Record<string, unknown>): string {
  const s = status as {
    phase?: string;
    podIP?: string;
    containerStatuses?: { ready?: boolean; restartCount?: number; state?: unknown }[];
  };
  return JSON.stringify([
    s.phase,
    s.podIP,
    (s.containerStatuses ?? []).map((c) => [c.ready, c.restartCount, Object.keys(c.state ?? {})]),
  ]);
}
