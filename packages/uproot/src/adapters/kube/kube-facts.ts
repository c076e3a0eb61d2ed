/**
 * Reduces client-node objects to the plain facts preflight judges (src/core/model/snapshot.ts), so the
 * snapshot of a large cluster stays small and carries nothing secret (no env, no secrets, no tokens).
 */
import type {
  V1DaemonSet,
  V1Lease,
  V1Node,
  V1PersistentVolume,
  V1Pod,
  V1Role,
  V1RoleBinding,
  V1Service,
  V1StorageClass,
} from '@kubernetes/client-node';
import type {
  ComponentPod,
  DaemonSetFacts,
  HelmChartFacts,
  ImageUse,
  LeaseFacts,
  LoadBalancerServiceFacts,
  NodeFacts,
  PersistentVolumeFacts,
  RoleBindingFacts,
  RoleFacts,
  StorageClassFacts,
} from '../../core/model/snapshot.js';
import type { Toleration } from '../../core/model/taint.js';
import { EBS_CSI_DRIVER } from '../../core/checks/index.js';

/** Annotations the checks read; everything else is dropped. */
const KEPT_ANNOTATIONS = [
  'rke2.io/node-args',
  'k3s.io/node-args',
  'rke.cattle.io/internal-ip',
  'rke.cattle.io/external-ip',
];

export function nodeFacts(n: V1Node): NodeFacts {
  const annotations: Record<string, string> = {};
  for (const key of KEPT_ANNOTATIONS) {
    const v = n.metadata?.annotations?.[key];
    if (v !== undefined) annotations[key] = v;
  }
  return {
    name: n.metadata?.name ?? '',
    labels: { ...(n.metadata?.labels ?? {}) },
    annotations,
    taints: (n.spec?.taints ?? []).map((t) => ({
      key: t.key,
      ...(t.value !== undefined ? { value: t.value } : {}),
      effect: t.effect,
    })),
    ...(n.spec?.providerID ? { providerID: n.spec.providerID } : {}),
    kubeletVersion: n.status?.nodeInfo?.kubeletVersion ?? '',
    internalIPs: (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address),
    unschedulable: n.spec?.unschedulable === true,
    ...(n.status?.addresses?.length
      ? { addresses: n.status.addresses.map((a) => ({ type: a.type, address: a.address })) }
      : {}),
    ...(n.status?.conditions?.length
      ? { conditions: n.status.conditions.map((c) => ({ type: c.type, status: c.status })) }
      : {}),
  };
}

export function componentPod(p: V1Pod): ComponentPod {
  const labels = p.metadata?.labels ?? {};
  const component = labels.component ?? labels['k8s-app'] ?? '';
  const container = p.spec?.containers.find((c) => c.name === component) ?? p.spec?.containers[0];
  return {
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    component,
    ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
    ...(container?.image ? { image: container.image } : {}),
    args: [...(container?.command ?? []), ...(container?.args ?? [])],
  };
}

export function leaseFacts(l: V1Lease): LeaseFacts {
  const renew = l.spec?.renewTime as unknown;
  const renewTime =
    renew instanceof Date ? renew.toISOString() : typeof renew === 'string' ? renew : undefined;
  return {
    name: l.metadata?.name ?? '',
    ...(l.spec?.holderIdentity ? { holderIdentity: l.spec.holderIdentity } : {}),
    ...(l.spec?.leaseDurationSeconds !== undefined
      ? { leaseDurationSeconds: l.spec.leaseDurationSeconds }
      : {}),
    ...(renewTime ? { renewTime } : {}),
  };
}

export function roleFacts(r: V1Role): RoleFacts {
  return {
    namespace: r.metadata?.namespace ?? '',
    name: r.metadata?.name ?? '',
    rules: (r.rules ?? []).map((rule) => ({
      apiGroups: rule.apiGroups ?? [],
      resources: rule.resources ?? [],
      verbs: rule.verbs,
      ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
    })),
  };
}

export function roleBindingFacts(b: V1RoleBinding): RoleBindingFacts {
  return {
    namespace: b.metadata?.namespace ?? '',
    name: b.metadata?.name ?? '',
    roleRef: { kind: b.roleRef.kind, name: b.roleRef.name },
    subjects: (b.subjects ?? []).map((s) => ({
      kind: s.kind,
      name: s.name,
      ...(s.namespace ? { namespace: s.namespace } : {}),
    })),
  };
}

export function daemonSetFacts(d: V1DaemonSet): DaemonSetFacts {
  const spec = d.spec?.template.spec;
  return {
    namespace: d.metadata?.namespace ?? '',
    name: d.metadata?.name ?? '',
    labels: { ...(d.metadata?.labels ?? {}) },
    containers: (spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      args: [...(c.command ?? []), ...(c.args ?? [])],
    })),
    nodeSelector: { ...(spec?.nodeSelector ?? {}) },
    tolerations: (spec?.tolerations ?? []).map((t): Toleration => {
      const out: { key?: string; operator?: string; value?: string; effect?: string } = {};
      if (t.key !== undefined) out.key = t.key;
      if (t.operator !== undefined) out.operator = t.operator;
      if (t.value !== undefined) out.value = t.value;
      if (t.effect !== undefined) out.effect = t.effect;
      return out;
    }),
    hostNetwork: spec?.hostNetwork === true,
    ...(spec?.serviceAccountName ? { serviceAccountName: spec.serviceAccountName } : {}),
    ...(d.status?.desiredNumberScheduled !== undefined
      ? { desiredNumberScheduled: d.status.desiredNumberScheduled }
      : {}),
  };
}

export function helmChartFacts(obj: unknown): HelmChartFacts {
  const o = (obj ?? {}) as {
    metadata?: { namespace?: string; name?: string };
    spec?: Record<string, unknown>;
  };
  const spec = o.spec ?? {};
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    namespace: o.metadata?.namespace ?? '',
    name: o.metadata?.name ?? '',
    chart: s(spec.chart) ?? '',
    ...(s(spec.repo) ? { repo: s(spec.repo)! } : {}),
    ...(s(spec.version) ? { version: s(spec.version)! } : {}),
    ...(s(spec.valuesContent) !== undefined ? { valuesContent: s(spec.valuesContent)! } : {}),
  };
}

export function loadBalancerService(s: V1Service): LoadBalancerServiceFacts | undefined {
  if (s.spec?.type !== 'LoadBalancer') return undefined;
  return {
    namespace: s.metadata?.namespace ?? '',
    name: s.metadata?.name ?? '',
    annotations: { ...(s.metadata?.annotations ?? {}) },
    ...(s.spec.loadBalancerClass ? { loadBalancerClass: s.spec.loadBalancerClass } : {}),
    ingressHostnames: (s.status?.loadBalancer?.ingress ?? [])
      .map((i) => i.hostname)
      .filter((h): h is string => !!h),
    ...(s.spec.ports?.length
      ? {
          ports: s.spec.ports.map((p) => ({
            port: p.port,
            protocol: p.protocol ?? 'TCP',
            ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
            ...(p.nodePort !== undefined ? { nodePort: p.nodePort } : {}),
          })),
        }
      : {}),
  };
}

export function ebsVolume(pv: V1PersistentVolume): PersistentVolumeFacts | undefined {
  const name = pv.metadata?.name ?? '';
  const ref = pv.spec?.claimRef;
  const sc = {
    ...(pv.spec?.storageClassName ? { storageClassName: pv.spec.storageClassName } : {}),
    ...(ref?.name ? { claim: `${ref.namespace ?? 'default'}/${ref.name}` } : {}),
  };
  if (pv.spec?.awsElasticBlockStore) {
    return { name, plugin: 'in-tree', volumeID: pv.spec.awsElasticBlockStore.volumeID, ...sc };
  }
  if (pv.spec?.csi?.driver === EBS_CSI_DRIVER)
    return { name, plugin: 'csi', volumeID: pv.spec.csi.volumeHandle, ...sc };
  return undefined;
}

export function storageClassFacts(s: V1StorageClass): StorageClassFacts {
  const a = s.metadata?.annotations ?? {};
  return {
    name: s.metadata?.name ?? '',
    provisioner: s.provisioner,
    isDefault:
      a['storageclass.kubernetes.io/is-default-class'] === 'true' ||
      a['storageclass.beta.kubernetes.io/is-default-class'] === 'true',
  };
}

/** Folds pods into distinct images (containers and init containers), keeping one example pod each. */
export class ImageTally {
  private readonly images = new Map<string, { pods: number; example: { namespace: string; name: string } }>();

  add(p: V1Pod): void {
    const seen = new Set<string>();
    for (const c of [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]) {
      if (!c.image || seen.has(c.image)) continue;
      seen.add(c.image);
      const entry = this.images.get(c.image);
      if (entry) entry.pods++;
      else
        this.images.set(c.image, {
          pods: 1,
          example: { namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' },
        });
    }
  }

  result(): ImageUse[] {
    return [...this.images.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([image, v]) => ({ image, ...v }));
  }
}
