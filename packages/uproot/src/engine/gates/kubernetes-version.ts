/**
 * `kubernetes-version`: the whole cluster runs the release an upgrade moved it to, before the next step (or
 * the next hop of a journey) starts. Three views, because each can lag the others during a roll: every
 * node's kubelet (status.nodeInfo.kubeletVersion), the API server that answers (/version gitVersion), and the
 * control-plane static pods on every control-plane node (their mirror pods' image tags). The planner gives the
 * forms the distribution shows (src/core/distros/shared/releases.ts); no imageTag means the control plane
 * runs without pods and only the other two views exist.
 */
import { imageTag } from '../../core/model/index.js';
import type { ComponentPodFacts, NodeFacts } from './gate-facts.js';
import { pass, someNames, wait, type GateVerdict } from './gate-verdict.js';

export interface VersionExpectation {
  readonly kubeletVersion: string;
  readonly gitVersion: string;
  readonly imageTag?: string;
}

/** The components whose static pods run the cluster's Kubernetes release (etcd and the CCM have their own). */
export const VERSIONED_CONTROL_PLANE = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
] as const;

const REQUIRED_ON_EVERY_CONTROL_PLANE_NODE = ['kube-apiserver', 'kube-controller-manager'] as const;

export interface VersionFacts {
  /** Every node. */
  readonly nodes: readonly NodeFacts[];
  /** The nodes matching the control-plane selector. */
  readonly controlPlane: readonly NodeFacts[];
  /** /version's gitVersion; undefined when it could not be read. */
  readonly gitVersion: string | undefined;
  /** kube-system pods of the VERSIONED_CONTROL_PLANE components (empty when not read). */
  readonly pods: readonly ComponentPodFacts[];
}

/** A tag carries the release when it is the release or the release plus a build suffix (`…-build20240717`). */
export function tagMatches(tag: string | undefined, expected: string): boolean {
  return tag === expected || (tag !== undefined && tag.startsWith(`${expected}-`));
}

function componentOf(pod: ComponentPodFacts): string | undefined {
  const label = pod.labels.component;
  if (label && (VERSIONED_CONTROL_PLANE as readonly string[]).includes(label)) return label;
  return VERSIONED_CONTROL_PLANE.find((c) => pod.name.startsWith(`${c}-`));
}

function podOn(
  pods: readonly ComponentPodFacts[],
  component: string,
  node: string,
): ComponentPodFacts | undefined {
  return (
    pods.find((p) => componentOf(p) === component && p.nodeName === node) ??
    pods.find((p) => p.name === `${component}-${node}`)
  );
}

/**
 * Problems with the control-plane pods; empty when they all run the release. kube-apiserver and
 * kube-controller-manager must run on every control-plane node (the migration relies on both); every other
 * versioned pod found (kube-scheduler) must run the release too.
 */
function controlPlaneProblems(facts: VersionFacts, expected: string): string[] {
  const problems: string[] = [];
  const judged = new Set<ComponentPodFacts>();
  const judge = (pod: ComponentPodFacts, component: string, node: string): void => {
    judged.add(pod);
    if (!tagMatches(imageTag(pod.image ?? ''), expected))
      problems.push(`${component} on ${node} (${pod.image ?? 'no image'})`);
    else if (pod.phase !== 'Running' || pod.ready === false)
      problems.push(`${component} on ${node} (${pod.phase ?? 'no phase'}, not ready)`);
  };
  for (const node of facts.controlPlane) {
    for (const component of REQUIRED_ON_EVERY_CONTROL_PLANE_NODE) {
      const pod = podOn(facts.pods, component, node.name);
      if (pod) judge(pod, component, node.name);
      else problems.push(`${component} on ${node.name} (no pod)`);
    }
  }
  for (const pod of facts.pods) {
    const component = componentOf(pod);
    if (component && !judged.has(pod)) judge(pod, component, pod.nodeName ?? pod.name);
  }
  return problems;
}

export function evaluateKubernetesVersion(
  facts: VersionFacts,
  expect: VersionExpectation,
  selector: string,
): GateVerdict {
  const fix =
    'wait for the upgrade to reach every node (the distribution restarts them one by one); a node that stays behind: check its kubelet and control-plane pods (journalctl -u kubelet, or rke2-server/rke2-agent; crictl logs) and the distribution\u2019s upgrade status';
  if (facts.nodes.length === 0) return wait('no nodes found', fix);
  const problems: string[] = [];
  if (facts.gitVersion !== expect.gitVersion)
    problems.push(
      `the API server reports ${facts.gitVersion ?? '(unreadable /version)'}, expected ${expect.gitVersion}`,
    );
  if (expect.imageTag !== undefined) {
    if (facts.controlPlane.length === 0) {
      return wait(
        `no control-plane node matches ${selector}`,
        `check the node labels (kubectl get nodes -l '${selector}')`,
      );
    }
    const pods = controlPlaneProblems(facts, expect.imageTag);
    if (pods.length > 0)
      problems.push(
        `${pods.length} control-plane pod(s) not yet on images tagged ${expect.imageTag}: ${someNames(pods)}`,
      );
  }
  const behind = facts.nodes
    .filter((n) => n.kubeletVersion !== expect.kubeletVersion)
    .map((n) => `${n.name} (${n.kubeletVersion ?? 'no version'})`);
  if (behind.length > 0)
    problems.push(
      `${behind.length} of ${facts.nodes.length} kubelets do not run ${expect.kubeletVersion}: ${someNames(behind)}`,
    );
  if (problems.length > 0) return wait(problems.join('; '), fix);
  const pods =
    expect.imageTag !== undefined
      ? `, and the control-plane pods run images tagged ${expect.imageTag} on all ${facts.controlPlane.length} control-plane nodes`
      : '';
  return pass(
    `all ${facts.nodes.length} kubelets run ${expect.kubeletVersion}, the API server reports ${expect.gitVersion}${pods}`,
  );
}
