/**
 * `ccm-static-pods` (kubeadm): the cloud-controller-manager static pod uproot wrote runs on every control-plane
 * node. The kubelet restarts a static pod some time after its manifest changes (its file check), so until then
 * the old pod is still Running: the gate waits for the pod the manifest describes (its image tag and its
 * leader-migration flag), Running and Ready, on each node. The DaemonSet gate is the same proof for the chart.
 */
import { imageTag } from '../../core/model/index.js';
import { flagEnabled, parseFlags } from '../../core/model/component-flags.js';
import type { ComponentPodFacts, NodeFacts } from './gate-facts.js';
import { pass, someNames, wait, type GateVerdict } from './gate-verdict.js';

export interface CcmPodExpectation {
  /** The image tag the manifest pins; absent: any. */
  readonly imageTag?: string;
  /** Whether the manifest runs leader migration; absent: either. */
  readonly leaderMigration?: boolean;
}

/** What differs between a CCM pod and the manifest it should run (empty when nothing does). */
export function ccmPodMismatch(pod: ComponentPodFacts, expect: CcmPodExpectation): string[] {
  const flags = parseFlags(pod.args);
  const problems: string[] = [];
  if (flags.get('cloud-provider') !== 'aws')
    problems.push(`--cloud-provider=${flags.get('cloud-provider') ?? '(unset)'} (expected aws)`);
  if (expect.imageTag !== undefined && (pod.image && imageTag(pod.image)) !== expect.imageTag)
    problems.push(`image ${pod.image ?? '(none)'} (expected tag ${expect.imageTag})`);
  const migration = flagEnabled(flags, 'enable-leader-migration', false);
  if (expect.leaderMigration !== undefined && migration !== expect.leaderMigration)
    problems.push(migration ? 'leader migration still enabled' : 'leader migration not enabled');
  return problems;
}

export function evaluateCcmStaticPods(
  nodes: readonly NodeFacts[],
  pods: readonly ComponentPodFacts[],
  expect: CcmPodExpectation,
  selector: string,
): GateVerdict {
  if (nodes.length === 0)
    return wait(
      `no control-plane node matches ${selector}`,
      `check the node labels (kubectl get nodes -l '${selector}')`,
    );
  const missing: string[] = [];
  const stale: string[] = [];
  const notReady: string[] = [];
  for (const node of nodes) {
    const pod =
      pods.find((p) => p.nodeName === node.name) ??
      pods.find((p) => p.name === `cloud-controller-manager-${node.name}`);
    if (!pod) {
      missing.push(node.name);
      continue;
    }
    const problems = ccmPodMismatch(pod, expect);
    if (problems.length > 0) stale.push(`${node.name} (${problems.join(', ')})`);
    else if (pod.phase !== 'Running' || pod.ready === false)
      notReady.push(`${node.name} (${pod.phase ?? 'no phase'})`);
  }
  if (stale.length > 0)
    return wait(
      `the cloud-controller-manager pod does not yet run its new manifest on ${stale.length} of ${nodes.length} control-plane nodes: ${someNames(stale)}`,
      'the kubelet restarts a static pod after its manifest changes; check /etc/kubernetes/manifests/cloud-controller-manager.yaml and the kubelet log on those nodes (journalctl -u kubelet)',
    );
  if (missing.length > 0)
    return wait(
      `no cloud-controller-manager pod on ${missing.length} of ${nodes.length} control-plane nodes: ${someNames(missing)}`,
      'the kubelet creates the mirror pod once it runs the manifest; check the kubelet on those nodes (journalctl -u kubelet)',
    );
  if (notReady.length > 0)
    return wait(
      `the cloud-controller-manager is not running and ready on ${someNames(notReady)}`,
      'check its logs on that node (crictl logs, or /var/log/pods); a bad flag or unreachable instance metadata makes it exit at start',
    );
  const tag = expect.imageTag ? ` ${expect.imageTag}` : '';
  return pass(
    `the cloud-controller-manager${tag} runs on all ${nodes.length} control-plane nodes${expect.leaderMigration === undefined ? '' : `, leader migration ${expect.leaderMigration ? 'on' : 'off'}`}`,
  );
}
