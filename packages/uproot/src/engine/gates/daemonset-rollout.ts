/**
 * `daemonset-rolled-out`: exactly the done-condition of `kubectl rollout status daemonset`
 * (kubectl/pkg/polymorphichelpers/rollout_status.go, DaemonSetStatusViewer).
 */
import type { DaemonSetFacts } from './gate-facts.js';
import { fail, pass, wait, type GateVerdict } from './gate-verdict.js';

export function evaluateDaemonSetRollout(
  ds: DaemonSetFacts | undefined,
  ref: { readonly namespace: string; readonly name: string },
): GateVerdict {
  const name = `daemonset ${ref.namespace}/${ref.name}`;
  if (!ds) {
    return wait(
      `${name} does not exist yet`,
      `check that the CCM was installed (kubectl -n ${ref.namespace} get daemonset ${ref.name}) and that the HelmChart or manifest that creates it was applied`,
    );
  }
  const strategy = ds.updateStrategyType ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate') {
    return fail(
      `${name} uses updateStrategy ${strategy}; rollout status is only available for the RollingUpdate strategy type`,
      `set spec.updateStrategy.type: RollingUpdate on ${name} so its rollout can be verified`,
    );
  }
  if (ds.generation !== undefined && (ds.observedGeneration ?? 0) < ds.generation) {
    return wait(
      `waiting for daemon set spec update to be observed (generation ${ds.generation}, observed ${ds.observedGeneration ?? 0})`,
      `check that kube-controller-manager is running: the daemonset controller updates ${name}'s status`,
    );
  }
  if (ds.updatedNumberScheduled < ds.desiredNumberScheduled) {
    return wait(
      `waiting for daemon set "${ds.name}" rollout to finish: ${ds.updatedNumberScheduled} out of ${ds.desiredNumberScheduled} new pods have been updated`,
      `look at the pods of ${name} (kubectl -n ${ref.namespace} get pods -o wide) for scheduling or image problems; cordoned control-plane nodes keep CCM pods Pending until they are uncordoned`,
    );
  }
  if (ds.numberAvailable < ds.desiredNumberScheduled) {
    return wait(
      `waiting for daemon set "${ds.name}" rollout to finish: ${ds.numberAvailable} of ${ds.desiredNumberScheduled} updated pods are available`,
      `look at the logs of ${name}'s pods (kubectl -n ${ref.namespace} logs ds/${ref.name}) for crashes, e.g. missing IAM permissions or a missing cluster tag`,
    );
  }
  return pass(
    `daemon set "${ds.name}" successfully rolled out (${ds.numberAvailable}/${ds.desiredNumberScheduled} available)`,
  );
}
