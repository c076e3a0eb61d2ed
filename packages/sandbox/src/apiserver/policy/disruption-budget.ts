import { isJsonObject, type JsonObject, type KubeObject } from '../kube-object.js';
import { labelSelectorFromSpec } from '../selectors/label-selector.js';

/**
 * PodDisruptionBudget arithmetic as pure functions over plain objects, shared by the twin's disruption
 * controller (kubernetes pkg/controller/disruption/disruption.go) and the API server's eviction subresource
 * (pkg/registry/core/pod/storage/eviction.go).
 */

/** disruption.go DeletionTimeout: an approved eviction not seen as a deletion within this is dropped. */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/** eviction.go MaxDisruptedPodSize. */
export const MAX_DISRUPTED_POD_SIZE = 2000;

export interface PdbStatus {
  readonly currentHealthy: number;
  readonly desiredHealthy: number;
  readonly expectedPods: number;
  readonly disruptionsAllowed: number;
  readonly disruptedPods?: Readonly<Record<string, string>>;
  readonly observedGeneration: number;
  readonly conditions?: readonly PdbCondition[];
}

export interface PdbCondition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly observedGeneration: number;
  readonly lastTransitionTime: string;
  readonly reason: string;
  readonly message: string;
}

export type IntOrString = number | string;

/**
 * k8s.io/apimachinery pkg/util/intstr GetScaledValueFromIntOrPercent: an integer as given; "N%" of `total`,
 * rounded up or down; any other string is an error.
 */
export function scaledValue(
  value: IntOrString,
  total: number,
  roundUp: boolean,
): { ok: true; value: number } | { ok: false; error: string } {
  if (typeof value === 'number') return { ok: true, value };
  if (!value.endsWith('%'))
    return { ok: false, error: 'invalid value for IntOrString: invalid type: string is not a percentage' };
  const digits = value.slice(0, -1);
  if (!/^[-+]?\d+$/.test(digits))
    return {
      ok: false,
      error: `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${digits}": invalid syntax`,
    };
  const scaled = (Number(digits) * total) / 100;
  return { ok: true, value: roundUp ? Math.ceil(scaled) : Math.floor(scaled) };
}

function record(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

function intOrString(value: unknown): IntOrString | undefined {
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

/** k8s.io/kubernetes pkg/api/v1/pod IsPodReady: the Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  const conditions = record(pod.status).conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True')
  );
}

export function statusOf(pdb: KubeObject): PdbStatus {
  const s = record(pdb.status);
  const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return {
    currentHealthy: n(s.currentHealthy),
    desiredHealthy: n(s.desiredHealthy),
    expectedPods: n(s.expectedPods),
    disruptionsAllowed: n(s.disruptionsAllowed),
    ...(isJsonObject(s.disruptedPods)
      ? { disruptedPods: s.disruptedPods as Readonly<Record<string, string>> }
      : {}),
    observedGeneration: n(s.observedGeneration),
    ...(Array.isArray(s.conditions) ? { conditions: s.conditions as PdbCondition[] } : {}),
  };
}

/**
 * Whether a budget covers a pod, as eviction.go getPodDisruptionBudgets: same namespace, a selector that
 * parses and is not empty ("a PDB with a nil or empty selector ... should match nothing"), and matches.
 * (The disruption controller's lister, GetPodPodDisruptionBudgets, applies the same rules.)
 */
export function budgetCovers(pdb: KubeObject, pod: KubeObject): boolean {
  if ((pdb.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return false;
  const spec = record(pdb.spec);
  if (!isJsonObject(spec.selector)) return false;
  try {
    const selector = labelSelectorFromSpec(spec.selector as Parameters<typeof labelSelectorFromSpec>[0]);
    return !selector.empty && selector.matches(pod.metadata?.labels);
  } catch {
    return false;
  }
}

/** The pods a budget counts (disruption.go getPodsForPdb: its selector over the namespace's pods). */
export function podsForBudget(pdb: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  const spec = record(pdb.spec);
  if (!isJsonObject(spec.selector)) return [];
  try {
    const selector = labelSelectorFromSpec(spec.selector as Parameters<typeof labelSelectorFromSpec>[0]);
    return pods.filter((p) => selector.matches(p.metadata?.labels));
  } catch {
    return [];
  }
}

/** A pod's controller and the scale it asks for, or why none was found (disruption.go finders). */
export type ScaleLookup =
  | { readonly kind: 'found'; readonly uid: string; readonly scale: number }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly error: string };

export interface ControllerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

export function controllerRefOf(pod: KubeObject): ControllerRef | undefined {
  const refs = pod.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const ref = refs.find((r) => isJsonObject(r) && r.controller === true) as JsonObject | undefined;
  return ref
    ? {
        apiVersion: String(ref.apiVersion ?? ''),
        kind: String(ref.kind ?? ''),
        name: String(ref.name ?? ''),
        uid: String(ref.uid ?? ''),
      }
    : undefined;
}

/**
 * disruption.go getExpectedScale: the sum of the scales of the pods' controllers (each counted once);
 * pods without a controller are listed as unmanaged; a pod whose controller is not found is an error.
 */
export function expectedScale(
  pods: readonly KubeObject[],
  lookup: (ref: ControllerRef, namespace: string) => ScaleLookup,
): { ok: true; expected: number; unmanaged: string[] } | { ok: false; error: string } {
  const scales = new Map<string, number>();
  const unmanaged: string[] = [];
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    if (!ref) {
      unmanaged.push(pod.metadata?.name ?? '');
      continue;
    }
    if (scales.has(ref.uid)) continue;
    const found = lookup(ref, pod.metadata?.namespace ?? '');
    if (found.kind === 'error') return { ok: false, error: found.error };
    if (found.kind === 'none')
      return { ok: false, error: `found no controllers for pod "${pod.metadata?.name ?? ''}"` };
    scales.set(found.uid, found.scale);
  }
  return { ok: true, expected: [...scales.values()].reduce((a, b) => a + b, 0), unmanaged };
}

/**
 * disruption.go getExpectedPodCount: maxUnavailable (int or percent of the controllers' scale, rounded up)
 * gives desiredHealthy = max(0, expected - maxUnavailable); an integer minAvailable is desiredHealthy over
 * the matching pod count; a percentage minAvailable is of the controllers' scale, rounded up.
 */
export function expectedPodCount(
  pdb: KubeObject,
  pods: readonly KubeObject[],
  lookup: (ref: ControllerRef, namespace: string) => ScaleLookup,
): { ok: true; expected: number; desired: number; unmanaged: string[] } | { ok: false; error: string } {
  const spec = record(pdb.spec);
  const maxUnavailable = intOrString(spec.maxUnavailable);
  const minAvailable = intOrString(spec.minAvailable);
  if (maxUnavailable !== undefined) {
    const scale = expectedScale(pods, lookup);
    if (!scale.ok) return scale;
    const max = scaledValue(maxUnavailable, scale.expected, true);
    if (!max.ok) return max;
    return { ...scale, desired: Math.max(0, scale.expected - max.value) };
  }
  if (typeof minAvailable === 'number')
    return { ok: true, expected: pods.length, desired: minAvailable, unmanaged: [] };
  if (typeof minAvailable === 'string') {
    const scale = expectedScale(pods, lookup);
    if (!scale.ok) return scale;
    const min = scaledValue(minAvailable, scale.expected, true);
    if (!min.ok) return min;
    return { ...scale, desired: min.value };
  }
  return { ok: true, expected: 0, desired: 0, unmanaged: [] };
}

/**
 * disruption.go buildDisruptedPodMap: keeps the entries of pods still there, not yet being deleted, whose
 * eviction is younger than DeletionTimeout; returns when to look again (the earliest expiry).
 */
export function liveDisruptedPods(
  disrupted: Readonly<Record<string, string>> | undefined,
  pods: readonly KubeObject[],
  now: number,
): { pods: Record<string, string>; recheckAt: number | undefined } {
  const result: Record<string, string> = {};
  let recheckAt: number | undefined;
  if (!disrupted) return { pods: result, recheckAt };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || !Object.hasOwn(disrupted, name)) continue;
    const expires = Date.parse(disrupted[name]!) + DELETION_TIMEOUT_MS;
    if (expires < now) continue;
    recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
    Object.defineProperty(result, name, { value: disrupted[name]!, enumerable: true, writable: true });
  }
  return { pods: result, recheckAt };
}

/**
 * disruption.go countHealthyPods: Ready pods that are not being deleted and not expected to be (an approved
 * eviction younger than DeletionTimeout).
 */
export function countHealthy(
  pods: readonly KubeObject[],
  disrupted: Readonly<Record<string, string>>,
  now: number,
): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? '';
    if (Object.hasOwn(disrupted, name) && Date.parse(disrupted[name]!) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/** disruption.go updatePdbStatus: no disruption while nothing is expected or too few are healthy. */
export function disruptionsAllowed(currentHealthy: number, desiredHealthy: number, expected: number): number {
  const allowed = currentHealthy - desiredHealthy;
  return expected <= 0 || allowed <= 0 ? 0 : allowed;
}

const DISRUPTION_ALLOWED = 'DisruptionAllowed';

/**
 * k8s.io/component-helpers apps/poddisruptionbudget UpdateDisruptionAllowedCondition, with apimachinery
 * meta.SetStatusCondition: the transition time moves only when the status changes.
 */
export function withDisruptionAllowedCondition(
  status: PdbStatus,
  now: string,
  failure?: { reason: string; message: string },
): PdbStatus {
  const allowed = failure === undefined && status.disruptionsAllowed > 0;
  const next = {
    status: allowed ? ('True' as const) : ('False' as const),
    reason: failure?.reason ?? (allowed ? 'SufficientPods' : 'InsufficientPods'),
    message: failure?.message ?? '',
  };
  const others = (status.conditions ?? []).filter((c) => c.type !== DISRUPTION_ALLOWED);
  const old = (status.conditions ?? []).find((c) => c.type === DISRUPTION_ALLOWED);
  const condition: PdbCondition = {
    type: DISRUPTION_ALLOWED,
    status: next.status,
    observedGeneration: status.observedGeneration,
    lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime : now,
    reason: next.reason,
    message: next.message,
  };
  return { ...status, conditions: [...others, condition] };
}

/** component-helpers ConditionsAreUpToDate. */
export function conditionsUpToDate(status: PdbStatus, generation: number): boolean {
  const c = status.conditions?.find((x) => x.type === DISRUPTION_ALLOWED);
  if (!c || status.observedGeneration !== generation) return false;
  return status.disruptionsAllowed > 0
    ? c.status === 'True' && c.reason === 'SufficientPods'
    : c.status === 'False' && c.reason === 'InsufficientPods';
}
