import { isRecord } from '../kube/kube-types.js';
import { hasRole, type InstanceLayout } from '../layout/cluster-layout.js';
import type { DrainOptions } from '../nodes/drain.js';

/**
 * Rancher's planner tiers and their concurrency, as plain data (rancher/rancher pkg/capr/planner/planner.go
 * fullReconcile, reconcile, calculateConcurrency; messages.go atMostThree, detailedMessage).
 *
 * fullReconcile reconciles four tiers, each finished before the next starts:
 * - `bootstrap`: the init node alone (isEtcd, excluding isNotInitNodeOrIsDeleting), concurrency "1";
 * - `etcd`: every other etcd machine (combined etcd + control-plane machines among them), concurrency "1";
 * - `control plane`: every other control-plane machine, `upgradeStrategy.controlPlaneConcurrency`;
 * - `worker`: machines that are only workers (isOnlyLinuxWorker), `upgradeStrategy.workerConcurrency`.
 * The first three drain with `controlPlaneDrainOptions`, workers with `workerDrainOptions`.
 */

export type TierName = 'bootstrap' | 'etcd' | 'control plane' | 'worker';

export interface TierMachine {
  readonly instance: Pick<InstanceLayout, 'machineName' | 'roles'>;
}

export interface Tier<M extends TierMachine> {
  readonly name: TierName;
  /** The tier's machines in name order (planner.go collect sorts the plan's machines by name). */
  readonly machines: readonly M[];
  /** The raw concurrency string Rancher passes to reconcile for the tier. */
  readonly maxUnavailable: string;
  readonly drain: DrainOptions;
}

/** The four tiers for a cluster's machines; `initMachine` is the machine labelled rke.cattle.io/init-node. */
export function rancherTiers<M extends TierMachine>(
  machines: readonly M[],
  initMachine: string | undefined,
  rkeConfig: Record<string, unknown>,
): Tier<M>[] {
  const strategy = isRecord(rkeConfig.upgradeStrategy) ? rkeConfig.upgradeStrategy : {};
  const byName = [...machines].sort((a, b) => byteOrder(a.instance.machineName, b.instance.machineName));
  const isInit = (m: M): boolean => m.instance.machineName === initMachine;
  const etcd = (m: M): boolean => hasRole(m.instance, 'etcd');
  const cp = (m: M): boolean => hasRole(m.instance, 'control-plane');
  const cpDrain = rancherDrainOptions(strategy.controlPlaneDrainOptions);
  return [
    {
      name: 'bootstrap',
      machines: byName.filter((m) => etcd(m) && isInit(m)),
      maxUnavailable: '1',
      drain: cpDrain,
    },
    {
      name: 'etcd',
      machines: byName.filter((m) => etcd(m) && !isInit(m)),
      maxUnavailable: '1',
      drain: cpDrain,
    },
    {
      name: 'control plane',
      machines: byName.filter((m) => cp(m) && !isInit(m)),
      maxUnavailable: stringOf(strategy.controlPlaneConcurrency),
      drain: cpDrain,
    },
    {
      name: 'worker',
      machines: byName.filter((m) => !etcd(m) && !cp(m)),
      maxUnavailable: stringOf(strategy.workerConcurrency),
      drain: rancherDrainOptions(strategy.workerDrainOptions),
    },
  ];
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/**
 * How many machines of a tier may be unavailable at once (planner.go calculateConcurrency): an integer as
 * given (strconv.Atoi; 0 means no limit, reconcile's `concurrency == 0`), "" → 1, otherwise a percentage
 * (strconv.ParseFloat after trimming "%") of all the tier's machines, rounded up (math.Ceil). A ceiling of 0
 * is no limit too. Anything else is the planner's error.
 */
export function calculateConcurrency(
  maxUnavailable: string,
  tierSize: number,
): { readonly ok: true; readonly concurrency: number } | { readonly ok: false; readonly error: string } {
  if (/^[+-]?\d+$/.test(maxUnavailable))
    return { ok: true, concurrency: Number.parseInt(maxUnavailable, 10) };
  if (maxUnavailable === '') return { ok: true, concurrency: 1 };
  const text = maxUnavailable.endsWith('%') ? maxUnavailable.slice(0, -1) : maxUnavailable;
  const percentage = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(percentage)) {
    return {
      ok: false,
      error: `concurrency must be a number or a percentage: strconv.ParseFloat: parsing "${text}": invalid syntax`,
    };
  }
  return { ok: true, concurrency: Math.ceil(tierSize * (percentage / 100)) };
}

/** Whether reconcile may make one more machine unavailable (`concurrency == 0 || unavailable < concurrency`). */
export function hasCapacity(concurrency: number, unavailable: number): boolean {
  return concurrency === 0 || unavailable < concurrency;
}

/**
 * Rancher's machine drain options (rkev1.DrainOptions) as the drain helper takes them
 * (pkg/controllers/capr/machinedrain/machinedrain.go getHelper: ignoreDaemonSets nil → true, timeout 0 → 600 s).
 */
export function rancherDrainOptions(raw: unknown): DrainOptions {
  const o = isRecord(raw) ? raw : {};
  const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);
  const timeout = num(o.timeout, 0);
  return {
    enabled: o.enabled === true,
    force: o.force === true,
    ignoreDaemonSets:
      o.ignoreDaemonSets === undefined || o.ignoreDaemonSets === null || o.ignoreDaemonSets === true,
    deleteEmptyDirData: o.deleteEmptyDirData === true,
    disableEviction: o.disableEviction === true,
    gracePeriodSeconds: num(o.gracePeriod, -1),
    timeoutSeconds: timeout === 0 ? 600 : timeout,
    skipWaitForDeleteTimeoutSeconds: num(o.skipWaitForDeleteTimeoutSeconds, 0),
  };
}

export type MachinePhase = 'configuring' | 'draining' | 'uncordoning';

/**
 * The tier's message on the Cluster (reconcile → setMachineConditionStatus → errWaiting): the uncordoning
 * machines first, then draining, then the out-of-sync ones ("configuring"), as `<phase> <tier> node(s)
 * <atMostThree(names)>`, with the machine's own messages after a colon when exactly one is named.
 */
export function tierMessage(
  tier: TierName,
  machines: readonly { readonly name: string; readonly phase: MachinePhase; readonly detail?: string }[],
): string | undefined {
  for (const phase of ['uncordoning', 'draining', 'configuring'] as const) {
    const named = machines.filter((m) => m.phase === phase);
    if (named.length === 0) continue;
    const names = named.map((m) => m.name).sort(byteOrder);
    const list =
      names.length > 3 ? `${names.slice(0, 3).join(',')} and ${names.length - 3} more` : names.join(',');
    const detail = named.length === 1 && named[0]!.detail ? `: ${named[0]!.detail}` : '';
    return `${phase} ${tier} node(s) ${list}${detail}`;
  }
  return undefined;
}

/** Go's string order (sort.Strings, `<` on strings): by UTF-16 code unit here, the same for machine names. */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
