import { isRecord, metaOf } from './kube/kube-types.js';
import { R, type TwinKube } from './kube/twin-kube.js';
import type { NodeFleet } from './nodes/node-fleet.js';
import type { PodRunner } from './nodes/pod-runner.js';

/** A summary of a running twin for `uproot sandbox status` and the control endpoint. */
export interface TwinStatus {
  readonly scenario: string;
  readonly distribution: string;
  readonly kubernetesVersion: string;
  /** What `/version` reports now (decision 0012). */
  readonly apiServerVersion: string;
  readonly time: string;
  readonly nodes: {
    readonly machines: number;
    readonly registered: number;
    readonly ready: number;
    readonly withProviderId: number;
    readonly uninitialized: number;
    readonly cordoned: number;
  };
  readonly managers: readonly {
    readonly node: string;
    readonly component: string;
    readonly identity: string | undefined;
    readonly state: string;
    readonly restarts: number;
  }[];
  /** What runs where: each node's kubeletVersion, and the image of each control-plane (mirror) pod. */
  readonly versions: {
    readonly kubelets: Readonly<Record<string, string>>;
    readonly controlPlanePods: Readonly<Record<string, string>>;
  };
  readonly leases: Readonly<Record<string, string | undefined>>;
  /** Components that cannot run: a kubelet that exits at start, a static pod in a crash-loop back-off. */
  readonly failing: readonly { readonly node: string; readonly component: string; readonly error: string }[];
  readonly cluster?: {
    readonly observedGeneration: unknown;
    readonly generation: unknown;
    readonly conditions: unknown;
  };
}

const LEASES = ['kube-controller-manager', 'cloud-controller-manager', 'cloud-provider-extraction-migration'];

export function twinStatus(input: {
  readonly scenario: string;
  readonly distribution: string;
  readonly kubernetesVersion: string;
  readonly apiServerVersion: string;
  readonly kube: TwinKube;
  readonly fleet: NodeFleet;
  readonly pods: PodRunner;
  readonly managementCluster?: Record<string, unknown> | undefined;
}): TwinStatus {
  const { kube, fleet } = input;
  const nodes = kube.list(R.nodes);
  let ready = 0;
  let withProviderId = 0;
  let uninitialized = 0;
  let cordoned = 0;
  const kubelets: Record<string, string> = {};
  for (const node of nodes) {
    const spec = isRecord(node.spec) ? node.spec : {};
    const status = isRecord(node.status) ? node.status : {};
    const info = isRecord(status.nodeInfo) ? status.nodeInfo : {};
    kubelets[metaOf(node).name ?? ''] = String(info.kubeletVersion ?? '');
    const conditions = Array.isArray(status.conditions)
      ? (status.conditions as { type?: string; status?: string }[])
      : [];
    if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) ready++;
    if (typeof spec.providerID === 'string' && spec.providerID) withProviderId++;
    if (
      Array.isArray(spec.taints) &&
      (spec.taints as { key?: string }[]).some(
        (t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized',
      )
    )
      uninitialized++;
    if (spec.unschedulable === true) cordoned++;
  }
  const managers = [
    ...fleet
      .all()
      .flatMap((a) => a.managers().map((m) => ({ node: a.nodeName ?? a.instance.machineName, ...m }))),
    ...input.pods.managers().map((m) => ({
      node: m.nodeName,
      component: `cloud-controller-manager (${m.pod})`,
      identity: m.identity,
      state: m.state,
      restarts: m.restarts,
    })),
  ];
  const controlPlanePods: Record<string, string> = {};
  for (const pod of kube.list(R.pods, { namespace: 'kube-system', labelSelector: 'tier=control-plane' })) {
    const containers = isRecord(pod.spec) && Array.isArray(pod.spec.containers) ? pod.spec.containers : [];
    const first: unknown = containers[0];
    controlPlanePods[metaOf(pod).name ?? ''] = isRecord(first) ? String(first.image ?? '') : '';
  }
  const leases: Record<string, string | undefined> = {};
  for (const name of LEASES) {
    const lease = kube.get(R.leases, 'kube-system', name);
    leases[name] = (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
  }
  const failing = fleet.all().flatMap((a) => {
    const node = a.nodeName ?? a.instance.machineName;
    return [
      ...(a.kubeletFailure ? [{ node, component: 'kubelet', error: a.kubeletFailure.error }] : []),
      ...a
        .components()
        .filter((c) => !c.running && c.message)
        .map((c) => ({ node, component: c.component, error: c.message ?? '' })),
    ];
  });
  const mc = input.managementCluster;
  return {
    scenario: input.scenario,
    distribution: input.distribution,
    kubernetesVersion: input.kubernetesVersion,
    apiServerVersion: input.apiServerVersion,
    time: new Date(kube.clock.now()).toISOString(),
    nodes: { machines: fleet.size, registered: nodes.length, ready, withProviderId, uninitialized, cordoned },
    managers,
    versions: { kubelets, controlPlanePods },
    leases,
    failing,
    ...(mc
      ? {
          cluster: {
            generation: metaOf(mc as never).generation,
            observedGeneration: (mc.status as { observedGeneration?: unknown } | undefined)
              ?.observedGeneration,
            conditions: (mc.status as { conditions?: unknown } | undefined)?.conditions,
          },
        }
      : {}),
  };
}
