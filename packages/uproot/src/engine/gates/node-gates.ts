/** `nodes-cordoned` and `nodes-initialized`, over one paged list of nodes. */
import type { NodeFacts } from './gate-facts.js';
import { pass, someNames, wait, type GateVerdict } from './gate-verdict.js';

export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';

export function evaluateNodesCordoned(nodes: readonly NodeFacts[], selector: string): GateVerdict {
  if (nodes.length === 0) {
    return wait(
      `no node matches ${selector}`,
      `check the control-plane node labels (kubectl get nodes -l '${selector}'); the plan expects this selector to match the control plane`,
    );
  }
  const open = nodes.filter((n) => !n.unschedulable).map((n) => n.name);
  if (open.length > 0) {
    return wait(
      `${open.length} of ${nodes.length} nodes matching ${selector} are still schedulable: ${someNames(open)}`,
      `cordon them: kubectl cordon -l '${selector}'`,
    );
  }
  return pass(`all ${nodes.length} nodes matching ${selector} are cordoned`);
}

export function evaluateNodesInitialized(nodes: readonly NodeFacts[]): GateVerdict {
  const withoutId = nodes.filter((n) => !n.providerID).map((n) => n.name);
  const tainted = nodes.filter((n) => n.taints.some((t) => t.key === UNINITIALIZED_TAINT)).map((n) => n.name);
  if (withoutId.length > 0) {
    return wait(
      `${withoutId.length} of ${nodes.length} nodes have no spec.providerID: ${someNames(withoutId)}`,
      'the cloud-controller-manager sets providerID when it initializes a node; check its logs for "instance not found" (node names must match the EC2 private DNS name or instance ID)',
    );
  }
  if (tainted.length > 0) {
    return wait(
      `${tainted.length} of ${nodes.length} nodes still carry the ${UNINITIALIZED_TAINT} taint: ${someNames(tainted)}`,
      'check that the cloud-controller-manager runs and can reach EC2; the taint is removed when it initializes the node',
    );
  }
  return pass(`all ${nodes.length} nodes have a providerID and no ${UNINITIALIZED_TAINT} taint`);
}
