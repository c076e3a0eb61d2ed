import { parse } from 'yaml';
import { rkeConfigOf } from 'uproot/core';
import { isRecord } from '../kube/kube-types.js';
import type { DrainOptions } from '../nodes/drain.js';

/**
 * `rke up`'s rolling rules for an existing cluster, as plain data and a host pool:
 * - cluster.yml's `upgrade_strategy` (rancher/rke types/rke_types.go NodeUpgradeStrategy, NodeDrainInput;
 *   cluster/defaults.go setNodeUpgradeStrategy: max_unavailable_worker "10%", max_unavailable_controlplane
 *   "1", node_drain_input ignore_daemonsets true, timeout 120, grace_period -1);
 * - cmd/up.go → cluster/hosts.go CalculateMaxUnavailable → services/node_util.go CalculateMaxUnavailable:
 *   a number, or a percentage of the role's hosts rounded down, 0 reset to 1, "0"/"0%"/negative refused;
 *   ResetMaxUnavailable caps it at 50 (WorkerThreads);
 * - the order (cluster/cluster.go DeployControlPlane, DeployWorkerPlane): the etcd plane host by host
 *   (services/etcd.go RunEtcdPlane), the controlplane hosts max_unavailable_controlplane at a time
 *   (services/controlplane.go processControlPlaneForUpgrade, which also redeploys their worker components),
 *   then the other hosts with etcd one at a time and the worker-only hosts max_unavailable_worker at a time
 *   (services/workerplane.go UpgradeWorkerPlaneForWorkerAndEtcdNodes).
 */

export interface RkeUpgradeStrategy {
  readonly maxUnavailableWorker: string;
  readonly maxUnavailableControlplane: string;
  /** `drain: true`: cordonAndDrainNode drains after cordoning (it always cordons). */
  readonly drain: boolean;
  readonly drainInput: DrainOptions;
}

/** RKE's `upgrade_strategy` from cluster.yml or Rancher's rancher_kubernetes_engine_config form. */
export function rkeUpgradeStrategy(clusterYml: string): RkeUpgradeStrategy {
  let doc: unknown;
  try {
    doc = parse(clusterYml);
  } catch {
    doc = {};
  }
  const root = isRecord(doc) ? rkeConfigOf(doc) : {};
  const s = isRecord(root.upgrade_strategy) ? root.upgrade_strategy : {};
  const text = (v: unknown, fallback: string): string =>
    v === undefined || v === null || v === '' ? fallback : String(v);
  const input = isRecord(s.node_drain_input) ? s.node_drain_input : {};
  const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);
  return {
    maxUnavailableWorker: text(s.max_unavailable_worker, '10%'),
    maxUnavailableControlplane: text(s.max_unavailable_controlplane, '1'),
    drain: s.drain === true,
    // services/node_util.go getDrainHelper; with `drain: true` and no node_drain_input RKE leaves the input
    // unset (defaults.go returns early) and dereferences it; the twin takes the defaults instead.
    drainInput: {
      enabled: s.drain === true,
      force: input.force === true,
      ignoreDaemonSets: input.ignore_daemonsets !== false,
      deleteEmptyDirData: input.delete_local_data === true,
      disableEviction: false,
      gracePeriodSeconds: num(input.grace_period, -1),
      timeoutSeconds: num(input.timeout, 120),
      skipWaitForDeleteTimeoutSeconds: 0,
    },
  };
}

/** services/node_util.go CalculateMaxUnavailable, then ResetMaxUnavailable's cap of 50. */
export function calculateMaxUnavailable(
  value: string,
  hosts: number,
  role: 'worker' | 'controlplane',
): { readonly ok: true; readonly n: number } | { readonly ok: false; readonly error: string } {
  const invalid = (shown: string) => ({
    ok: false as const,
    error: `invalid input for max_unavailable_${role}: ${shown}, value must be > 0`,
  });
  let n: number;
  if (/^[+-]?\d+$/.test(value)) {
    n = Number.parseInt(value, 10);
    if (n <= 0) return invalid(String(n));
  } else {
    if (value.startsWith('-') || value === '0%') return invalid(value);
    const pct = /^(\d+)%$/.exec(value);
    if (!pct)
      return { ok: false, error: `invalid value for IntOrString: invalid type: string is not a percentage` };
    // intstr.GetScaledValueFromIntOrPercent with roundUp false: floor.
    n = Math.floor((Number(pct[1]) * hosts) / 100);
  }
  if (n === 0) n = 1;
  return { ok: true, n: Math.min(n, WORKER_THREADS) };
}

/** rancher/rke util.WorkerThreads: at most this many hosts are upgraded in parallel. */
const WORKER_THREADS = 50;

/**
 * `parallel` workers taking hosts from one queue in order (util.GetObjectQueue and the errgroup loops of
 * processControlPlaneForUpgrade, processWorkerPlaneForUpgrade): a worker stops at its first failure, and no
 * worker takes a new host once any host failed. Returns the failures.
 */
export async function runHostPool<H>(
  hosts: readonly H[],
  parallel: number,
  upgrade: (host: H) => Promise<string | undefined>,
): Promise<string[]> {
  const queue = [...hosts];
  const failures: string[] = [];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined && failures.length === 0; next = queue.shift()) {
      const failure = await upgrade(next);
      if (failure) failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, queue.length)) }, worker));
  return failures;
}
