import { isJsonObject, type KubeObject } from '../kube-object.js';
import {
  MAX_DISRUPTED_POD_SIZE,
  budgetCovers,
  isPodReady,
  statusOf,
  withDisruptionAllowedCondition,
  type PdbStatus,
} from './disruption-budget.js';

/**
 * What POST pods/<name>/eviction does with a pod and its namespace's budgets, as kubernetes
 * pkg/registry/core/pod/storage/eviction.go EvictionREST.Create decides it (pure: the handler reads and
 * writes the store).
 */

export type EvictionPlan =
  /** canIgnorePDB, no budget, or an unhealthy pod the budget lets go: delete (with a resourceVersion
   * precondition where upstream sets one, so a pod turning Ready meanwhile is not deleted). */
  | { readonly kind: 'delete'; readonly resourceVersion?: string; readonly budget?: string }
  /** More than one budget covers the pod: a 500 Status (not stored). */
  | { readonly kind: 'multiple' }
  /** One budget: verify-and-decrement it (checkAndDecrement). */
  | { readonly kind: 'check'; readonly budget: KubeObject };

export const MULTIPLE_BUDGETS_MESSAGE =
  'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

export const VIOLATES_BUDGET_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";

function phaseOf(pod: KubeObject): string {
  return isJsonObject(pod.status) && typeof pod.status.phase === 'string' ? pod.status.phase : '';
}

/** eviction.go canIgnorePDB: terminal or Pending pods, and pods already being deleted. */
export function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    Boolean(pod.metadata?.deletionTimestamp)
  );
}

/** eviction.go shouldEnforceResourceVersion: every pod but terminal and deleting ones. */
function enforcesResourceVersion(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || Boolean(pod.metadata?.deletionTimestamp));
}

export function planEviction(
  pod: KubeObject,
  budgets: readonly KubeObject[],
  requestedResourceVersion: string | undefined,
): EvictionPlan {
  const rv = pod.metadata?.resourceVersion;
  if (canIgnoreBudget(pod)) {
    return requestedResourceVersion === undefined && enforcesResourceVersion(pod) && rv
      ? { kind: 'delete', resourceVersion: rv }
      : { kind: 'delete' };
  }
  const covering = budgets.filter((b) => budgetCovers(b, pod));
  if (covering.length > 1) return { kind: 'multiple' };
  const budget = covering[0];
  if (!budget) return { kind: 'delete' };
  const name = budget.metadata?.name ?? '';
  if (!isPodReady(pod)) {
    const spec = isJsonObject(budget.spec) ? budget.spec : {};
    const status = statusOf(budget);
    // An unready pod does not count towards currentHealthy: AlwaysAllow lets it go, the default
    // (IfHealthyBudget) when the application is healthy; neither decrements the budget.
    if (
      spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' ||
      (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0)
    )
      return { kind: 'delete', budget: name, ...(rv ? { resourceVersion: rv } : {}) };
  }
  return { kind: 'check', budget };
}

export type DecrementResult =
  | { readonly ok: true; readonly status: PdbStatus }
  | {
      readonly ok: false;
      readonly code: 429 | 403;
      readonly message: string;
      /** The DisruptionBudget cause's message (429 only). */
      readonly cause?: string;
      readonly retryAfterSeconds?: number;
    };

/**
 * eviction.go checkAndDecrement: a budget whose status lags its generation is "still being processed"
 * (429, retry after 10 s); a negative count or an oversized disruptedPods map is Forbidden; none allowed is
 * 429 with the budget's numbers; otherwise one fewer allowed and the pod recorded in disruptedPods (not on a
 * dry run).
 */
export function checkAndDecrement(
  budget: KubeObject,
  podName: string,
  now: string,
  dryRun: boolean,
): DecrementResult {
  const name = budget.metadata?.name ?? '';
  const status = statusOf(budget);
  if (status.observedGeneration < (budget.metadata?.generation ?? 0)) return stillProcessing(name);
  if (status.disruptionsAllowed < 0)
    return { ok: false, code: 403, message: 'pdb disruptions allowed is negative' };
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE)
    return {
      ok: false,
      code: 403,
      message: 'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    };
  if (status.disruptionsAllowed === 0)
    return {
      ok: false,
      code: 429,
      message: VIOLATES_BUDGET_MESSAGE,
      cause: `The disruption budget ${name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`,
      retryAfterSeconds: 0,
    };
  let next: PdbStatus = { ...status, disruptionsAllowed: status.disruptionsAllowed - 1 };
  if (next.disruptionsAllowed === 0) next = withDisruptionAllowedCondition(next, now);
  if (dryRun) return { ok: true, status: next };
  const disrupted: Record<string, string> = { ...(status.disruptedPods ?? {}) };
  Object.defineProperty(disrupted, podName, { value: now, enumerable: true, writable: true });
  return { ok: true, status: { ...next, disruptedPods: disrupted } };
}

/** eviction.go createTooManyRequestsError. */
export function stillProcessing(name: string): DecrementResult {
  return {
    ok: false,
    code: 429,
    message: VIOLATES_BUDGET_MESSAGE,
    cause: `The disruption budget ${name} is still being processed by the server.`,
    retryAfterSeconds: 10,
  };
}
