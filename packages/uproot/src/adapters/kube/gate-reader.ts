/**
 * Reads the facts gates judge, over paged lists (no per-node GETs). Downstream objects come from the cluster
 * being migrated; the Rancher provisioning Cluster from the management cluster when there is one.
 */
import type { ObjectRef } from '../../core/model/plan-types.js';
import type {
  AccessAnswer,
  AccessQuestion,
  ClusterObjectFacts,
  ComponentPodFacts,
  DaemonSetFacts,
  GateReader,
  LeaseFacts,
  ManagerComponent,
  NodeFacts,
  ServiceFacts,
} from '../../engine/gates/gate-facts.js';
import { VERSIONED_CONTROL_PLANE } from '../../engine/gates/kubernetes-version.js';
import type { KubeObject, ObjectStore } from '../../engine/ports.js';
import { deepEqual } from '../../engine/object-diff/json.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const strMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(rec(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));

export function nodeFacts(n: KubeObject): NodeFacts {
  const spec = rec(n.spec);
  const providerID = str(spec.providerID);
  const kubeletVersion = str(rec(rec(n.status).nodeInfo).kubeletVersion);
  return {
    name: n.metadata?.name ?? '',
    labels: strMap(n.metadata?.labels),
    unschedulable: spec.unschedulable === true,
    ...(providerID ? { providerID } : {}),
    ...(kubeletVersion ? { kubeletVersion } : {}),
    taints: arr(spec.taints).map((t) => {
      const value = str(rec(t).value);
      return { key: str(rec(t).key) ?? '', effect: str(rec(t).effect) ?? '', ...(value ? { value } : {}) };
    }),
  };
}

export function leaseFacts(l: KubeObject): LeaseFacts {
  const spec = rec(l.spec);
  const out: Record<string, unknown> = {
    namespace: l.metadata?.namespace ?? '',
    name: l.metadata?.name ?? '',
  };
  for (const key of ['holderIdentity', 'acquireTime', 'renewTime'] as const)
    if (str(spec[key])) out[key] = spec[key];
  for (const key of ['leaseDurationSeconds', 'leaseTransitions'] as const)
    if (num(spec[key]) !== undefined) out[key] = spec[key];
  return out as unknown as LeaseFacts;
}

export function podFacts(p: KubeObject, component: string): ComponentPodFacts {
  const spec = rec(p.spec);
  const status = rec(p.status);
  const containers = arr(spec.containers).map(rec);
  const container = containers.find((c) => c.name === component) ?? containers[0] ?? {};
  const ready = arr(status.conditions)
    .map(rec)
    .find((c) => c.type === 'Ready');
  return {
    name: p.metadata?.name ?? '',
    ...(str(spec.nodeName) ? { nodeName: str(spec.nodeName)! } : {}),
    labels: strMap(p.metadata?.labels),
    args: [...arr(container.command), ...arr(container.args)].filter(
      (a): a is string => typeof a === 'string',
    ),
    ...(str(status.phase) ? { phase: str(status.phase)! } : {}),
    ...(ready ? { ready: ready.status === 'True' } : {}),
    ...(str(container.image) ? { image: str(container.image)! } : {}),
    ...(str(status.startTime) ? { startTime: str(status.startTime)! } : {}),
  };
}

/**
 * Whether a kube-system pod runs `component`: static pods carry component=<name> and are named <name>-<node>;
 * the aws-cloud-controller-manager chart's DaemonSet pods carry only k8s-app=<release>, named after it.
 */
export function runsComponent(p: KubeObject, component: ManagerComponent): boolean {
  const labels = strMap(p.metadata?.labels);
  const name = p.metadata?.name ?? '';
  if (labels.component === component || name.startsWith(`${component}-`)) return true;
  return (
    component === 'cloud-controller-manager' &&
    ((labels['k8s-app'] ?? '').endsWith(component) || name.startsWith(`aws-${component}-`))
  );
}

export function serviceFacts(s: KubeObject): ServiceFacts {
  const ingress = arr(rec(rec(s.status).loadBalancer).ingress).map(rec);
  return {
    namespace: s.metadata?.namespace ?? '',
    name: s.metadata?.name ?? '',
    type: str(rec(s.spec).type) ?? 'ClusterIP',
    hostnames: ingress.map((i) => str(i.hostname)).filter((h): h is string => !!h),
    ips: ingress.map((i) => str(i.ip)).filter((h): h is string => !!h),
  };
}

export class KubeGateReader implements GateReader {
  constructor(
    private readonly downstream: ObjectStore,
    private readonly management?: ObjectStore,
  ) {}

  async daemonSet(namespace: string, name: string): Promise<DaemonSetFacts | undefined> {
    const ds = await this.downstream.get({ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace, name });
    if (!ds) return undefined;
    const spec = rec(ds.spec);
    const status = rec(ds.status);
    const out: Record<string, unknown> = {
      namespace,
      name,
      desiredNumberScheduled: num(status.desiredNumberScheduled) ?? 0,
      updatedNumberScheduled: num(status.updatedNumberScheduled) ?? 0,
      numberAvailable: num(status.numberAvailable) ?? 0,
    };
    if (ds.metadata?.generation !== undefined) out.generation = ds.metadata.generation;
    if (num(status.observedGeneration) !== undefined) out.observedGeneration = status.observedGeneration;
    const strategy = str(rec(spec.updateStrategy).type);
    if (strategy) out.updateStrategyType = strategy;
    return out as unknown as DaemonSetFacts;
  }

  async nodes(labelSelector?: string): Promise<NodeFacts[]> {
    const nodes = await this.downstream.list('v1', 'Node', labelSelector ? { labelSelector } : {});
    return nodes.map(nodeFacts);
  }

  async leases(namespace: string): Promise<LeaseFacts[]> {
    const leases = await this.downstream.list('coordination.k8s.io/v1', 'Lease', { namespace });
    return leases.map(leaseFacts);
  }

  async componentPods(component: ManagerComponent): Promise<ComponentPodFacts[]> {
    // Static pods of kubeadm and RKE2 carry component=<name>; fall back to the mirror-pod name prefix. The
    // CCM chart's DaemonSet pods have no component label, so for the CCM every kube-system pod is looked at.
    const labelled =
      component === 'kube-controller-manager'
        ? await this.downstream.list('v1', 'Pod', {
            namespace: 'kube-system',
            labelSelector: `component=${component}`,
          })
        : [];
    const pods =
      labelled.length > 0
        ? labelled
        : (await this.downstream.list('v1', 'Pod', { namespace: 'kube-system' })).filter((p) =>
            runsComponent(p, component),
          );
    return pods.map((p) => podFacts(p, component));
  }

  async controlPlanePods(): Promise<ComponentPodFacts[]> {
    const pods = await this.downstream.list('v1', 'Pod', {
      namespace: 'kube-system',
      labelSelector: `component in (${VERSIONED_CONTROL_PLANE.join(',')})`,
    });
    return pods.map((p) => podFacts(p, strMap(p.metadata?.labels).component ?? ''));
  }

  async serverVersion(): Promise<{ readonly gitVersion: string }> {
    return this.downstream.serverVersion();
  }

  async clusterObject(ref: ObjectRef): Promise<ClusterObjectFacts | undefined> {
    const objects = ref.api === 'management' ? (this.management ?? this.downstream) : this.downstream;
    const cluster = await objects.get(ref);
    if (!cluster) return undefined;
    const status = rec(cluster.status);
    const out: Record<string, unknown> = {
      conditions: arr(status.conditions)
        .map(rec)
        .map((c) => ({
          type: str(c.type) ?? '',
          status: str(c.status) ?? 'Unknown',
          ...(str(c.reason) ? { reason: str(c.reason)! } : {}),
          ...(str(c.message) ? { message: str(c.message)! } : {}),
        })),
    };
    if (ref.apiVersion === 'management.cattle.io/v3') {
      // Rancher's RKE1 provisioner records what it applied, not which generation it saw.
      out.appliedSpecCurrent = deepEqual(
        rkeSettingsUprootEdits(rec(status.appliedSpec).rancherKubernetesEngineConfig),
        rkeSettingsUprootEdits(rec(cluster.spec).rancherKubernetesEngineConfig),
      );
      out.failedSpec = status.failedSpec !== undefined && status.failedSpec !== null;
      return out as unknown as ClusterObjectFacts;
    }
    if (cluster.metadata?.generation !== undefined) out.generation = cluster.metadata.generation;
    if (num(status.observedGeneration) !== undefined) out.observedGeneration = status.observedGeneration;
    if (typeof status.ready === 'boolean') out.ready = status.ready;
    return out as unknown as ClusterObjectFacts;
  }

  async loadBalancerServices(): Promise<ServiceFacts[]> {
    const services = await this.downstream.list('v1', 'Service');
    return services.map(serviceFacts).filter((s) => s.type === 'LoadBalancer');
  }

  async canI(q: AccessQuestion): Promise<AccessAnswer> {
    const review = await this.downstream.create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: q.user,
        resourceAttributes: {
          verb: q.verb,
          group: q.group,
          resource: q.resource,
          namespace: q.namespace,
          name: q.name,
        },
      },
    });
    const status = rec(review.status);
    return {
      allowed: status.allowed === true,
      ...(str(status.reason) ? { reason: str(status.reason)! } : {}),
    };
  }
}

/**
 * The parts of a v3 Cluster's RKE options uproot's steps edit. Only these are compared with
 * status.appliedSpec: Rancher moves secrets (etcd S3 keys, registry passwords) out of the spec into Secrets
 * (pkg/controllers/management/secretmigrator), so the whole spec and the applied one can differ for ever.
 */
function rkeSettingsUprootEdits(rke: unknown): unknown {
  const r = rec(rke);
  const services = rec(r.services);
  return {
    kubernetesVersion: r.kubernetesVersion,
    cloudProvider: r.cloudProvider,
    kubeController: services.kubeController,
    kubeApi: services.kubeApi,
    kubelet: services.kubelet,
  };
}
