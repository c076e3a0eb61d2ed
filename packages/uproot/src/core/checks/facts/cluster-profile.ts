/**
 * Facts derived once from the snapshot and shared by the checks: the distribution, the control-plane nodes,
 * the versions, and the kube-controller-manager's effective flags (from its pods, or the cluster definition
 * when the KCM is not a pod, as on RKE).
 */
import { parseKubernetesVersion, type KubernetesVersion } from '../../model/kubernetes-version.js';
import type { KubeSnapshot, NodeFacts } from '../../model/snapshot.js';
import type { Readable } from '../../model/readable.js';
import { normalizeArg, parseFlags, type Flags } from '../../model/component-flags.js';
import type { ClusterDefinition } from '../../model/cluster-definition.js';
import { imageTag } from '../../model/index.js';

export type Distro = 'rke2' | 'rke' | 'kubeadm' | 'k3s' | 'unknown';

export interface KcmView {
  /** Where the flags come from: `pod kube-system/kube-controller-manager-cp1` or the definition file. */
  readonly source: string;
  readonly nodeName?: string;
  readonly flags: Flags;
}

/** A control-plane component's release, and where it was read (for messages). */
export interface ComponentVersion {
  readonly component: 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';
  /** `pod kube-system/kube-apiserver-cp1 (image …)`, or `/version`. */
  readonly source: string;
  readonly nodeName?: string;
  readonly version: KubernetesVersion;
}

/** The components whose images carry the cluster's release (etcd and the CCM have their own versions). */
const VERSIONED = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

export interface ClusterProfile {
  readonly distro: Distro;
  readonly distroEvidence: string;
  readonly nodes: readonly NodeFacts[];
  readonly controlPlane: readonly NodeFacts[];
  /**
   * The control plane's release: the oldest of controlPlaneVersions (kube-controller-manager may lag
   * kube-apiserver by a minor, and the migration starts from the managers' release), else the oldest kubelet's.
   */
  readonly version?: KubernetesVersion;
  /**
   * What each control-plane component runs: its static pods' image tags on every control-plane node; the API
   * server's /version only where no such pod is visible (RKE runs its control plane in Docker). /version is
   * answered by one kube-apiserver only, so the pods are the fuller picture where there are any.
   */
  readonly controlPlaneVersions: readonly ComponentVersion[];
  readonly targetVersion?: KubernetesVersion;
  readonly definition?: ClusterDefinition;
  readonly kcm: Readable<readonly KcmView[]>;
}

export function isControlPlaneNode(node: NodeFacts): boolean {
  const l = node.labels;
  return (
    'node-role.kubernetes.io/control-plane' in l ||
    'node-role.kubernetes.io/master' in l ||
    l['node-role.kubernetes.io/controlplane'] === 'true'
  );
}

export function buildProfile(kube: KubeSnapshot, targetVersion?: string): ClusterProfile {
  const nodes = kube.nodes.state === 'ok' ? kube.nodes.value : [];
  const definition = kube.clusterDefinition?.state === 'ok' ? kube.clusterDefinition.value : undefined;
  const { distro, evidence } = detectDistro(kube, nodes, definition);
  const controlPlane = controlPlaneVersions(kube);
  return {
    distro,
    distroEvidence: evidence,
    nodes,
    controlPlane: nodes.filter(isControlPlaneNode),
    version: releaseName(
      oldest(controlPlane.map((c) => c.version)) ?? oldest(kubeletVersions(nodes)),
      kube,
      nodes,
    ),
    controlPlaneVersions: controlPlane,
    targetVersion: targetVersion ? parseKubernetesVersion(targetVersion, '--target-version') : undefined,
    definition,
    kcm: kcmViews(kube, definition),
  };
}

/** The distribution the nodes' own markers name (RKE2's, k3s's or RKE's), if any; what preflight and verify go by. */
export function distroFromNodes(
  nodes: readonly {
    readonly name: string;
    readonly kubeletVersion?: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  }[],
): { distro: Distro; evidence: string } | undefined {
  const rke2 = nodes.find(
    (n) => n.kubeletVersion?.includes('+rke2') || 'rke2.io/node-args' in (n.annotations ?? {}),
  );
  if (rke2) return { distro: 'rke2', evidence: `node ${rke2.name} runs ${rke2.kubeletVersion ?? 'RKE2'}` };
  const k3s = nodes.find((n) => n.kubeletVersion?.includes('+k3s'));
  if (k3s) return { distro: 'k3s', evidence: `node ${k3s.name} runs ${k3s.kubeletVersion ?? 'k3s'}` };
  const rke = nodes.find(
    (n) =>
      n.labels['node-role.kubernetes.io/controlplane'] === 'true' ||
      'rke.cattle.io/internal-ip' in (n.annotations ?? {}),
  );
  if (rke) return { distro: 'rke', evidence: `node ${rke.name} has RKE's role labels` };
  return undefined;
}

function detectDistro(
  kube: KubeSnapshot,
  nodes: readonly NodeFacts[],
  definition: ClusterDefinition | undefined,
): { distro: Distro; evidence: string } {
  if (definition) return { distro: definition.distro, evidence: `cluster definition ${definition.source}` };
  const marked = distroFromNodes(nodes);
  if (marked) return marked;
  const pods = kube.componentPods.state === 'ok' ? kube.componentPods.value : [];
  const kcmPod = pods.find((p) => p.component === 'kube-controller-manager');
  if (kcmPod) return { distro: 'kubeadm', evidence: `static pod ${kcmPod.namespace}/${kcmPod.name}` };
  return { distro: 'unknown', evidence: 'no distribution markers on nodes or kube-system pods' };
}

function controlPlaneVersions(kube: KubeSnapshot): ComponentVersion[] {
  const pods = kube.componentPods.state === 'ok' ? kube.componentPods.value : [];
  const fromPods = pods.flatMap((p): ComponentVersion[] => {
    const component = VERSIONED.find((c) => c === p.component);
    const tag = p.image ? imageTag(p.image) : undefined;
    const parsed = tag ? tryParse(tag) : undefined;
    // An image tag is not a release name (`v1.26.15-rke2r1-build20240416`): messages show the version.
    const version = parsed && { ...parsed, raw: `v${parsed.major}.${parsed.minor}.${parsed.patch}` };
    if (!component || !version) return [];
    return [
      {
        component,
        source: `pod ${p.namespace}/${p.name} (${p.image})`,
        ...(p.nodeName ? { nodeName: p.nodeName } : {}),
        version,
      },
    ];
  });
  if (fromPods.some((c) => c.component === 'kube-apiserver')) return fromPods;
  const raw = kube.server.state === 'ok' ? kube.server.value.gitVersion : undefined;
  const server = raw ? tryParse(raw) : undefined;
  return server
    ? [{ component: 'kube-apiserver', source: '/version', version: server }, ...fromPods]
    : fromPods;
}

/**
 * The same version under its release name where the cluster shows one (`/version`'s gitVersion, else a
 * kubelet's: `v1.26.15+rke2r1`), so that reports speak the distribution's form; image tags are not release
 * names (`v1.26.15-rke2r1-build20240416`).
 */
function releaseName(
  version: KubernetesVersion | undefined,
  kube: KubeSnapshot,
  nodes: readonly NodeFacts[],
): KubernetesVersion | undefined {
  if (!version) return undefined;
  const server = kube.server.state === 'ok' ? tryParse(kube.server.value.gitVersion) : undefined;
  const named = [server, ...kubeletVersions(nodes)].find(
    (v) => v && v.major === version.major && v.minor === version.minor && v.patch === version.patch,
  );
  return named ?? version;
}

function kubeletVersions(nodes: readonly NodeFacts[]): KubernetesVersion[] {
  return nodes.map((n) => tryParse(n.kubeletVersion)).filter((v) => v !== undefined);
}

export function oldest(versions: readonly KubernetesVersion[]): KubernetesVersion | undefined {
  return [...versions].sort((a, b) => a.major - b.major || a.minor - b.minor || a.patch - b.patch)[0];
}

export function tryParse(raw: string): KubernetesVersion | undefined {
  try {
    return parseKubernetesVersion(raw);
  } catch {
    return undefined;
  }
}

function kcmViews(
  kube: KubeSnapshot,
  definition: ClusterDefinition | undefined,
): Readable<readonly KcmView[]> {
  const fromDefinition = definition ? kcmFromDefinition(definition) : undefined;
  if (kube.componentPods.state === 'ok') {
    const pods = kube.componentPods.value.filter((p) => p.component === 'kube-controller-manager');
    if (pods.length > 0) {
      return {
        state: 'ok',
        value: pods.map((p) => ({
          source: `pod ${p.namespace}/${p.name}`,
          ...(p.nodeName ? { nodeName: p.nodeName } : {}),
          flags: parseFlags(p.args),
        })),
      };
    }
  }
  if (fromDefinition) return { state: 'ok', value: [fromDefinition] };
  return {
    state: 'unavailable',
    reason:
      kube.componentPods.state === 'unavailable'
        ? kube.componentPods.reason
        : 'no kube-controller-manager pods in kube-system (RKE runs it in Docker): pass --cluster-file or --rancher-context',
  };
}

/** The KCM flags a definition implies (the distribution adds --cloud-provider from its own setting). */
export function kcmFromDefinition(definition: ClusterDefinition): KcmView {
  switch (definition.distro) {
    case 'rke2': {
      const cp = definition.roles['control-plane'];
      const args = cp.kcmArgs.map(normalizeArg);
      const provider = cp.cloudProviderName ?? definition.cloudProviderName;
      const implied =
        provider === 'aws'
          ? ['--cloud-provider=aws']
          : provider === 'external'
            ? ['--cloud-provider=external']
            : [];
      return { source: definition.source, flags: parseFlags([...implied, ...args]) };
    }
    case 'rke': {
      const provider = definition.cloudProviderName;
      const implied =
        provider === 'aws'
          ? ['--cloud-provider=aws']
          : provider?.startsWith('external')
            ? ['--cloud-provider=external']
            : [];
      const extra = Object.entries(definition.kcmExtraArgs).map(([k, v]) => `--${k}=${v}`);
      return { source: definition.source, flags: parseFlags([...implied, ...extra]) };
    }
    case 'kubeadm':
      return { source: definition.source, flags: parseFlags(definition.kcmArgs) };
  }
}
