/** RKE2's facts for the engine and verify (see DistroFacts). */
import type { DistroFacts } from '../distro.js';

export const rke2Facts: DistroFacts = {
  // RKE2 labels its servers node-role.kubernetes.io/control-plane=true.
  controlPlaneSelector: 'node-role.kubernetes.io/control-plane=true',
  managerPods: { readable: true },
  rollout: { type: 'cluster-object' },
};
