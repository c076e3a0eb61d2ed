/** kubeadm's facts for the engine and verify (see DistroFacts). */
import type { DistroFacts } from '../distro.js';

export const kubeadmFacts: DistroFacts = {
  controlPlaneSelector: 'node-role.kubernetes.io/control-plane',
  managerPods: { readable: true },
  rollout: {
    type: 'static-pods',
    passed: 'kubeadm has no cluster object; control-plane-flags checks the static pods',
  },
};
