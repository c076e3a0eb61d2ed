/** RKE's facts for the engine and verify (see DistroFacts). */
import type { DistroFacts } from '../distro.js';

export const RKE_FLAGS_SKIPPED =
  'skipped on RKE: kube-controller-manager runs as a Docker container, not a pod, so its flags cannot be read through the API; `rke up` applied them';

export const rkeFacts: DistroFacts = {
  // RKE labels its control-plane nodes node-role.kubernetes.io/controlplane=true (no dash).
  controlPlaneSelector: 'node-role.kubernetes.io/controlplane=true',
  managerPods: { readable: false, reason: RKE_FLAGS_SKIPPED },
  rollout: {
    type: 'command',
    command: ['rke', 'up', '--config', '{file}'],
    passed: '`rke up` completed successfully for this step',
  },
};
