/**
 * How a pod process (a separate Node process running the uproot CLI) shares the twin's time. In virtual time
 * the twin's clock owns every timer: the pod asks it to `sleep` and is woken with the time; the pod counts as
 * work in flight (`clock.track`) from the moment it is woken (or started) until it says it is `idle` (every
 * sleep registered, no tracked request open), so the twin never advances time while a pod still computes.
 * In scaled real time the pod is told the scale and the current simulated time once and runs its own clock.
 */
export type ToPod =
  | { readonly t: 'hello'; readonly mode: 'virtual'; readonly now: number }
  | { readonly t: 'hello'; readonly mode: 'scaled'; readonly now: number; readonly scale: number }
  /** A sleep is over; `seq` numbers wakes so a stale `idle` is told apart. */
  | { readonly t: 'wake'; readonly id: number; readonly now: number; readonly seq: number };

export type FromPod =
  | { readonly t: 'sleep'; readonly id: number; readonly ms: number }
  | { readonly t: 'cancel'; readonly id: number }
  /** Nothing left to do but wait: everything after wake `seq` is done. */
  | { readonly t: 'idle'; readonly seq: number }
  /** Work started without a wake (an I/O callback): time stops again. */
  | { readonly t: 'busy' };

export function isFromPod(m: unknown): m is FromPod {
  return typeof m === 'object' && m !== null && typeof (m as { t?: unknown }).t === 'string';
}

export function isToPod(m: unknown): m is ToPod {
  return typeof m === 'object' && m !== null && typeof (m as { t?: unknown }).t === 'string';
}
