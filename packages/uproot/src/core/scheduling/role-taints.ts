/**
 * The taints each distribution puts on its control-plane and etcd nodes, so the CCM's tolerations can be
 * judged and planned against them. Values matter: a toleration with `value: "true"` does not tolerate
 * Rancher's RKE2 taints, which have none.
 */
import type { Taint } from '../model/taint.js';

export type RoleTaintDistro = 'rke2' | 'rke' | 'kubeadm';

export const ROLE_TAINTS: Readonly<Record<RoleTaintDistro, readonly Taint[]>> = {
  // Rancher on machines without the worker role (rancher/rancher pkg/capr/planner/planner.go getTaints).
  rke2: [
    { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' },
  ],
  // `rke up` on hosts without the worker role (rancher/rke services/workerplane.go, cluster/plan.go).
  rke: [
    { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
  ],
  // kubeadm's ControlPlaneTaint (kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go).
  kubeadm: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
};
