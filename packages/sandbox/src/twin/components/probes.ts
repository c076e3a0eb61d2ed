/** What a distribution's health checks need of a machine. */
export interface ProbedMachine {
  readonly instance: { readonly role: string };
  readonly kubeletFailure: { readonly log: string; readonly error: string } | undefined;
  components(): readonly {
    readonly component: string;
    readonly running: boolean;
    readonly message: string | undefined;
  }[];
}

/** One failing health check: which component, and the last thing it logged. */
export interface ProbeFailure {
  readonly component: string;
  readonly log: string;
}

/**
 * The probes Rancher's system-agent runs after a plan (kubelet healthz on every node; kube-apiserver and
 * kube-controller-manager on servers: rancher/rancher pkg/capr/planner probes) and RKE's healthchecks after it
 * upgrades a host (rancher/rke services/healthcheck.go), reduced to: is the process up. A kube-controller-manager
 * that is up and waiting for its lease counts as healthy, as its /healthz does.
 */
export function probeFailures(machine: ProbedMachine): ProbeFailure[] {
  const out: ProbeFailure[] = [];
  if (machine.kubeletFailure) out.push({ component: 'kubelet', log: machine.kubeletFailure.log });
  if (machine.instance.role !== 'control-plane') return out;
  for (const c of machine.components()) {
    if ((c.component === 'kube-apiserver' || c.component === 'kube-controller-manager') && !c.running) {
      out.push({ component: c.component, log: c.message ?? '' });
    }
  }
  return out.sort((a, b) => a.component.localeCompare(b.component));
}
