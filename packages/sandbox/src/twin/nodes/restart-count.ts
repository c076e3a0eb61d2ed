import type { NodeRole } from '../layout/cluster-layout.js';

/**
 * How often each simulated machine's Kubernetes processes were restarted by a change applied to it: the
 * twin's own count of the journey's restarts (issue 24), next to which the plans' count is checked
 * (bench/journey.bench.ts).
 *
 * What counts, per process of the machine:
 * - `rke2-server` / `rke2-agent`: every plan Rancher's system-agent applies with a new restart stamp
 *   (rancher/rancher pkg/capr/planner/config.go restartStamp). A plan whose only change is addons.yaml
 *   (additionalManifest, a Dynamic file left out of the stamp) restarts nothing.
 * - `rke up`: every `rke up` run that restarts at least one container on the host (rancher/rke
 *   services/controlplane.go and workerplane.go redeploy a host's changed services only).
 * - `kubelet` and each static pod (`kube-apiserver`, `kube-controller-manager`, `cloud-controller-manager`,
 *   ...): every stop and start of it for a new definition (kubeadm's kubelet restarts a static pod whose
 *   manifest changed; RKE2's supervisor and `rke up` restart the changed ones).
 *
 * A first start (a pod added, the machine booting) is no restart; nor is a crash the kubelet restarts on its
 * own (that is the container's restartCount, in `sandbox status`). A machine's count is its most restarted
 * process: on RKE2 and RKE every restart of a component is one of the supervisor's (rke2-server, rke up);
 * on kubeadm no single process supervises the others and each restarts on its own file.
 */
export class RestartCounter {
  private readonly counts = new Map<string, number>();

  note(process: string): void {
    this.counts.set(process, (this.counts.get(process) ?? 0) + 1);
  }

  byProcess(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** The machine's count: its most restarted process. */
  total(): number {
    return Math.max(0, ...this.counts.values());
  }
}

export interface NodeRestarts {
  /** The machine (RKE2 machine, RKE node entry), stable across renames. */
  readonly machine: string;
  readonly node: string | undefined;
  readonly roles: readonly NodeRole[];
  readonly restarts: number;
  readonly processes: Readonly<Record<string, number>>;
}

export interface JourneyRestarts {
  readonly nodes: readonly NodeRestarts[];
  /** The most restarts of any machine with the role (a combined etcd + control-plane machine counts for both). */
  readonly maxByRole: Readonly<Partial<Record<NodeRole, number>>>;
}

export function journeyRestarts(
  machines: readonly {
    readonly instance: { readonly machineName: string; readonly roles: readonly NodeRole[] };
    readonly nodeName: string | undefined;
    readonly restartCounts: RestartCounter;
  }[],
): JourneyRestarts {
  const nodes = machines.map((m) => ({
    machine: m.instance.machineName,
    node: m.nodeName,
    roles: m.instance.roles,
    restarts: m.restartCounts.total(),
    processes: m.restartCounts.byProcess(),
  }));
  const maxByRole: Partial<Record<NodeRole, number>> = {};
  for (const n of nodes)
    for (const role of n.roles) maxByRole[role] = Math.max(maxByRole[role] ?? 0, n.restarts);
  return { nodes, maxByRole };
}
