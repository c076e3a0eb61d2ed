/**
 * Facts derived once from the snapshot and shared by the checks: the distribution, the control-plane nodes,
 * the versions, and the kube-controller-manager's effective flags (from its pods, or the cluster definition
 * when the KCM is not a pod, as on RKE).
 */
import { parseKubernetesVersion, type KubernetesVersion } from '../../kubernetes-version/index.js';
import type { KubeSnapshot, NodeFacts, Readable } from '../snapshot.js';
import { normalizeArg, parseFlags, type Flags } from './component-flags.js';
import type { ClusterDefinition } from './cluster-definition.js';

export type Distro = 'rke2' | 'rke' | 'kubeadm' | 'k3s' | 'unknown';

export interface KcmView {
  /** Where the flags come from: `pod kube-system/kube-controller-manager-cp1` or the definition file. */
  readonly source: string;
  readonly nodeName?: string;
  readonly flags: Flags;
}

export interface ClusterProfile {
  readonly distro: Distro;
  readonly distroEvidence: string;
  readonly nodes: readonly NodeFacts[];
  readonly controlPlane: readonly NodeFacts[];
  /** The API server's version, else the oldest kubelet's. */
  readonly version?: KubernetesVersion;
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
  return {
    distro,
    distroEvidence: evidence,
    nodes,
    controlPlane: nodes.filter(isControlPlaneNode),
    version: clusterVersion(kube, nodes),
    targetVersion: targetVersion ? parseKubernetesVersion(targetVersion, '--target-version') : undefined,
    definition,
    kcm: kcmViews(kube, definition),
  };
}

function detectDistro(
  kube: KubeSnapshot,
  nodes: readonly NodeFacts[],
  definition: ClusterDefinition | undefined,
): { distro: Distro; evidence: string } {
  if (definition) return { distro: definition.distro, evidence: `cluster definition ${definition.source}` };
  const rke2 = nodes.find((n) => n.kubeletVersion.includes('+rke2') || 'rke2.io/node-args' in n.annotations);
  if (rke2) return { distro: 'rke2', evidence: `node ${rke2.name} runs ${rke2.kubeletVersion}` };
  const k3s = nodes.find((n) => n.kubeletVersion.includes('+k3s'));
  if (k3s) return { distro: 'k3s', evidence: `node ${k3s.name} runs ${k3s.kubeletVersion}` };
  const rke = nodes.find(
    (n) =>
      n.labels['node-role.kubernetes.io/controlplane'] === 'true' ||
      'rke.cattle.io/internal-ip' in n.annotations,
  );
  if (rke) return { distro: 'rke', evidence: `node ${rke.name} has RKE's role labels` };
  const pods = kube.componentPods.state === 'ok' ? kube.componentPods.value : [];
  const kcmPod = pods.find((p) => p.component === 'kube-controller-manager');
  if (kcmPod) return { distro: 'kubeadm', evidence: `static pod ${kcmPod.namespace}/${kcmPod.name}` };
  return { distro: 'unknown', evidence: 'no distribution markers on nodes or kube-system pods' };
}

function clusterVersion(kube: KubeSnapshot, nodes: readonly NodeFacts[]): KubernetesVersion | undefined {
  const raw = kube.server.state === 'ok' ? kube.server.value.gitVersion : undefined;
  const parsed = raw ? tryParse(raw) : undefined;
  if (parsed) return parsed;
  const kubelets = nodes.map((n) => tryParse(n.kubeletVersion)).filter((v) => v !== undefined);
  return kubelets.sort((a, b) => a.minor - b.minor || a.patch - b.patch)[0];
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
