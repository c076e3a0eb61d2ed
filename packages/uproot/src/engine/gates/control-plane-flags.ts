/**
 * `control-plane-flags`: kube-controller-manager runs with the planned flags on every control-plane node.
 * Read from the KCM static pods in kube-system (kubeadm and RKE2 both name them kube-controller-manager-<node>
 * and label them component=kube-controller-manager): the container's command and args, parsed like pflag.
 * A distribution whose KCM runs without a pod (RKE: a Docker container) has nothing to read; the gate passes
 * with the distribution's reason and the migration-lease and rollout gates carry the proof instead.
 */
import type { DistroFacts } from '../../core/distros/distro.js';
import { flagEnabled, parseFlags } from '../../core/model/component-flags.js';
import type { ComponentPodFacts, NodeFacts } from './gate-facts.js';
import { pass, someNames, wait, type GateVerdict } from './gate-verdict.js';

export interface FlagExpectation {
  readonly cloudProvider: 'aws' | 'external';
  readonly kcmLeaderMigration: boolean;
}

export function evaluateControlPlaneFlags(
  facts: Pick<DistroFacts, 'managerPods'>,
  nodes: readonly NodeFacts[],
  pods: readonly ComponentPodFacts[],
  expect: FlagExpectation,
  selector: string,
): GateVerdict {
  if (!facts.managerPods.readable) return pass(facts.managerPods.reason);
  if (nodes.length === 0) {
    return wait(
      `no control-plane node matches ${selector}`,
      `check the node labels (kubectl get nodes -l '${selector}')`,
    );
  }
  const missing: string[] = [];
  const notReady: string[] = [];
  const wrong: string[] = [];
  for (const node of nodes) {
    const pod = podOn(pods, node.name);
    if (!pod) {
      missing.push(node.name);
      continue;
    }
    const mismatch = flagMismatch(pod.args, expect);
    if (mismatch) wrong.push(`${node.name} (${mismatch})`);
    else if (pod.phase !== 'Running' || pod.ready === false)
      notReady.push(`${node.name} (${pod.phase ?? 'no phase'})`);
  }
  if (wrong.length > 0) {
    return wait(
      `kube-controller-manager does not run with the planned flags on ${wrong.length} of ${nodes.length} control-plane nodes: ${someNames(wrong)}`,
      `expected --cloud-provider=${expect.cloudProvider} and leader migration ${expect.kcmLeaderMigration ? 'enabled' : 'disabled'}; wait for the distribution to restart KCM with the new manifest, or check the node's static pod manifest`,
    );
  }
  if (missing.length > 0) {
    return wait(
      `no kube-controller-manager pod found on ${missing.length} control-plane nodes: ${someNames(missing)}`,
      'the kubelet recreates the mirror pod after a manifest change; check the kubelet on those nodes',
    );
  }
  if (notReady.length > 0) {
    return wait(
      `kube-controller-manager is not running and ready on ${someNames(notReady)}`,
      'check its logs on that node (crictl logs, or /var/log/pods); a bad flag makes it exit at start',
    );
  }
  return pass(
    `kube-controller-manager runs with --cloud-provider=${expect.cloudProvider}, leader migration ${expect.kcmLeaderMigration ? 'on' : 'off'}, on all ${nodes.length} control-plane nodes`,
  );
}

function podOn(pods: readonly ComponentPodFacts[], node: string): ComponentPodFacts | undefined {
  return (
    pods.find((p) => p.nodeName === node) ?? pods.find((p) => p.name === `kube-controller-manager-${node}`)
  );
}

/** A short description of what differs, or undefined when the flags are as expected. */
export function flagMismatch(args: readonly string[], expect: FlagExpectation): string | undefined {
  const flags = parseFlags(args);
  const provider = flags.get('cloud-provider') ?? '';
  const migration = flagEnabled(flags, 'enable-leader-migration', false);
  const problems: string[] = [];
  if (provider !== expect.cloudProvider) problems.push(`--cloud-provider=${provider || '(unset)'}`);
  if (migration !== expect.kcmLeaderMigration) {
    problems.push(migration ? 'leader migration enabled' : 'leader migration not enabled');
  }
  return problems.length > 0 ? problems.join(', ') : undefined;
}
