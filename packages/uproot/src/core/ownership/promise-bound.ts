/**
 * The bound of uproot's promise, from the cluster's own flags: no controller stays without a leader longer
 * than leader election itself allows, LeaseDuration + RetryPeriod of the flags the managers run
 * (`--leader-elect-lease-duration`, `--leader-elect-retry-period`; upstream defaults 15 s and 2 s,
 * k8s.io/component-base/config/v1alpha1/defaults.go), plus an allowance for a process start. With the
 * defaults: 20 s. Why this figure and not client-go's jittered worst case: docs/decisions/0021-promise-bound.md.
 */
import { parseFlags } from '../model/component-flags.js';
import { parseGoDuration } from '../../election/model/index.js';
import type { ManagerComponent } from '../leader-migration/index.js';
import type { ComponentPods } from './holder-profiles.js';

/** Seconds a manager's process may take from its start to its first try at the lease. */
export const PROCESS_START_ALLOWANCE_SECONDS = 3;
export const DEFAULT_LEASE_DURATION_SECONDS = 15;
export const DEFAULT_RETRY_PERIOD_SECONDS = 2;

export interface PromiseBound {
  readonly leaseDurationSeconds: number;
  readonly retryPeriodSeconds: number;
  readonly startAllowanceSeconds: number;
  /** The longest time a controller may be without a leader: the sum of the three. */
  readonly seconds: number;
  /** Where the timings come from: a manager's flags, or upstream's defaults (no pod could be read). */
  readonly basis: 'flags' | 'defaults';
}

function round(s: number): number {
  return Math.round(s * 1000) / 1000;
}

function bound(leaseDuration: number, retryPeriod: number, basis: PromiseBound['basis']): PromiseBound {
  return {
    leaseDurationSeconds: leaseDuration,
    retryPeriodSeconds: retryPeriod,
    startAllowanceSeconds: PROCESS_START_ALLOWANCE_SECONDS,
    seconds: round(leaseDuration + retryPeriod + PROCESS_START_ALLOWANCE_SECONDS),
    basis,
  };
}

export const DEFAULT_PROMISE_BOUND: PromiseBound = bound(
  DEFAULT_LEASE_DURATION_SECONDS,
  DEFAULT_RETRY_PERIOD_SECONDS,
  'defaults',
);

/**
 * The bound a manager with these command-line args runs under. A value Go cannot parse falls back to the
 * default: the manager would not start with it, so it is not what runs.
 */
export function promiseBoundOf(args: readonly string[]): PromiseBound {
  const flags = parseFlags(args);
  const seconds = (name: string, fallback: number): number => {
    const value = flags.get(name);
    if (value === undefined) return fallback;
    try {
      const ms = parseGoDuration(value);
      return ms > 0 ? ms / 1000 : fallback;
    } catch {
      return fallback;
    }
  };
  return bound(
    seconds('leader-elect-lease-duration', DEFAULT_LEASE_DURATION_SECONDS),
    seconds('leader-elect-retry-period', DEFAULT_RETRY_PERIOD_SECONDS),
    'flags',
  );
}

/** The larger of two bounds (the longer wait is the one the promise can keep). */
export function widerBound(a: PromiseBound, b: PromiseBound): PromiseBound {
  return b.seconds > a.seconds ? b : a;
}

/**
 * Each manager's bound: the widest among its pods (replicas may differ while a rollout is under way), the
 * default when none of its pods can be read (RKE's docker containers, an unreadable cluster).
 */
export function componentBounds(pods?: ComponentPods): Record<ManagerComponent, PromiseBound> {
  const of = (component: ManagerComponent): PromiseBound => {
    const list = pods?.[component] ?? [];
    return list.length === 0
      ? DEFAULT_PROMISE_BOUND
      : list.map((p) => promiseBoundOf(p.args)).reduce(widerBound);
  };
  return {
    'kube-controller-manager': of('kube-controller-manager'),
    'cloud-controller-manager': of('cloud-controller-manager'),
  };
}

/**
 * The bound a controller is judged against: the widest of the managers that ran it. A handover between two
 * managers (KCM to CCM) waits out the old holder's lease duration and then the new candidate's retry period,
 * so each handover is within the wider of the two; no correct handover is judged a breach.
 */
export function controllerBound(
  components: readonly ManagerComponent[],
  bounds: Readonly<Record<ManagerComponent, PromiseBound>>,
): PromiseBound {
  return components.length === 0
    ? widerBound(bounds['kube-controller-manager'], bounds['cloud-controller-manager'])
    : components.map((c) => bounds[c]).reduce(widerBound);
}
