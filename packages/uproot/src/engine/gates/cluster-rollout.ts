/**
 * `cluster-rolled-out`: Rancher finished rolling out a change to a provisioning.cattle.io/v1 Cluster. Read:
 * metadata.generation and status.observedGeneration (Rancher has seen our spec), status.ready, and the
 * conditions Ready, Provisioned and Updated (True when present) and Stalled (not True). For RKE the rollout is
 * `rke up` itself, which the applier waited for; kubeadm's static pods are judged by control-plane-flags.
 */
import type { DistroFacts } from '../../core/distros/distro.js';
import type { ClusterObjectFacts } from './gate-facts.js';
import { pass, wait, type GateVerdict } from './gate-verdict.js';

const MUST_BE_TRUE = ['Ready', 'Provisioned', 'Updated'] as const;

export function evaluateClusterRolledOut(
  facts: Pick<DistroFacts, 'rollout'>,
  cluster: ClusterObjectFacts | undefined,
  name: string,
): GateVerdict {
  // No cluster object to read: the rollout was the applier's command (RKE) or the static pods (kubeadm).
  if (facts.rollout.type !== 'cluster-object') return pass(facts.rollout.passed);
  if (!cluster) {
    return wait(`the Rancher cluster ${name} was not found`, 'check --rancher-context and --cluster');
  }
  const rke1 = cluster.appliedSpecCurrent !== undefined;
  const fix = rke1
    ? `follow the update in Rancher (Cluster Management > ${name}) or kubectl get clusters.management.cattle.io ${name} -o yaml (status.conditions Updated, status.failedSpec)`
    : `follow the rollout in Rancher (Cluster Management > ${name}) or kubectl -n fleet-default get clusters.provisioning.cattle.io ${name} -o yaml`;
  if (cluster.failedSpec) {
    const updated = cluster.conditions.find((c) => c.type === 'Updated');
    return wait(`Rancher's rke up failed: ${updated?.message ?? 'status.failedSpec is set'}`, fix);
  }
  if (cluster.appliedSpecCurrent === false)
    return wait('Rancher has not applied the change yet (status.appliedSpec differs from the spec)', fix);
  if (cluster.generation !== undefined && (cluster.observedGeneration ?? 0) < cluster.generation) {
    return wait(
      `Rancher has not observed the change yet (generation ${cluster.generation}, observed ${cluster.observedGeneration ?? 0})`,
      fix,
    );
  }
  const stalled = cluster.conditions.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (stalled)
    return wait(`the cluster is stalled: ${stalled.message ?? stalled.reason ?? 'no message'}`, fix);
  for (const type of MUST_BE_TRUE) {
    const condition = cluster.conditions.find((c) => c.type === type);
    if (condition && condition.status !== 'True') {
      return wait(
        `condition ${type} is ${condition.status}${condition.message ? `: ${condition.message}` : ''}`,
        fix,
      );
    }
  }
  if (cluster.ready === false) return wait('status.ready is false', fix);
  if (rke1) return pass(`Rancher applied the change to ${name} (status.appliedSpec, condition Updated True)`);
  return pass(
    `Rancher rolled out generation ${cluster.observedGeneration ?? cluster.generation ?? '?'} of ${name}`,
  );
}
