import { kubeTimestamp, type KubeObject } from '../kube-object.js';
import { ApiStatusError, forbidden } from '../status/api-status-error.js';
import type { ObjectStore } from '../store/object-store.js';
import type { Admit } from '../store/store-types.js';
import {
  MULTIPLE_BUDGETS_MESSAGE,
  checkAndDecrement,
  planEviction,
  stillProcessing,
  type DecrementResult,
} from './eviction-decision.js';

/**
 * The eviction subresource against the store (kubernetes pkg/registry/core/pod/storage/eviction.go
 * EvictionREST.Create), for HTTP clients (`kubectl drain`, client-go's Evict) and the twin's own drains alike.
 * The store runs on one thread, so the get and the write below cannot interleave with another writer and
 * upstream's retry-on-conflict loops collapse to one pass. The delete is the store's delete (the twin
 * removes a pod at once; gracePeriodSeconds changes nothing there, as on its DELETE).
 */

export const PODS = { group: '', version: 'v1', resource: 'pods' };
export const PDBS = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };

export interface EvictOptions {
  /** The time the budget records the approved eviction at (disruptedPods). */
  readonly now: number;
  readonly dryRun?: boolean;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly admit?: Admit;
}

/** What an eviction answered: a Success Status (201), or upstream's 500 Status for overlapping budgets. */
export type EvictionAnswer =
  | { readonly kind: 'evicted'; readonly pod: KubeObject }
  | { readonly kind: 'multiple-budgets'; readonly message: string };

export function tooManyRequestsFor(
  result: Extract<DecrementResult, { ok: false }>,
  name: string,
): ApiStatusError {
  if (result.code === 403)
    return forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, result.message);
  const retry = result.retryAfterSeconds ?? 0;
  return new ApiStatusError(
    {
      message: result.message,
      reason: 'TooManyRequests',
      details: {
        ...(retry > 0 ? { retryAfterSeconds: retry } : {}),
        causes: [{ reason: 'DisruptionBudget', message: result.cause ?? '' }],
      },
      code: 429,
    },
    retry > 0 ? { 'Retry-After': String(retry) } : {},
  );
}

export function evictPod(
  store: ObjectStore,
  namespace: string,
  name: string,
  options: EvictOptions,
): EvictionAnswer {
  const pod = store.mustGet(PODS, namespace, name);
  const requestedRv = options.preconditions?.resourceVersion;
  const budgets = store.list(PDBS, { namespace }).items;
  const plan = planEviction(pod, budgets, requestedRv);
  if (plan.kind === 'multiple') return { kind: 'multiple-budgets', message: MULTIPLE_BUDGETS_MESSAGE };
  const remove = (resourceVersion: string | undefined): KubeObject => {
    const preconditions =
      resourceVersion !== undefined ? { ...options.preconditions, resourceVersion } : options.preconditions;
    return store.delete(PODS, namespace, name, {
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.admit ? { admit: options.admit } : {}),
      ...(preconditions ? { preconditions } : {}),
    }).object;
  };
  if (plan.kind === 'delete') {
    try {
      return { kind: 'evicted', pod: remove(plan.resourceVersion) };
    } catch (error) {
      // An unhealthy pod let go under the budget turned Ready meanwhile: the client retries (429).
      if (plan.budget && requestedRv === undefined && isConflict(error))
        throw tooManyRequestsFor(
          stillProcessing(plan.budget) as Extract<DecrementResult, { ok: false }>,
          plan.budget,
        );
      throw error;
    }
  }
  const budgetName = plan.budget.metadata?.name ?? '';
  const now = kubeTimestamp(options.now);
  const decision = checkAndDecrement(plan.budget, name, now, options.dryRun === true);
  if (!decision.ok) throw tooManyRequestsFor(decision, budgetName);
  if (!options.dryRun) {
    store.update(
      PDBS,
      { ...plan.budget, status: decision.status },
      { namespace, name: budgetName, subresource: 'status' },
    );
  }
  return { kind: 'evicted', pod: remove(undefined) };
}

function isConflict(error: unknown): boolean {
  return error instanceof ApiStatusError && error.reason === 'Conflict';
}
