/**
 * Who may hold the migration lock (a coordination.k8s.io/v1 Lease), decided purely from the Lease as read.
 * A lock whose renewTime + leaseDurationSeconds has passed belongs to a run that died; it can be taken over.
 * So can a lock whose holder is known to be gone (its process ran on this machine and runs no more), at once.
 */
export interface LockLease {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly renewTime?: string;
  readonly acquireTime?: string;
  readonly leaseTransitions?: number;
}

export type LockDecision =
  | { readonly type: 'create' }
  /** Free (released), expired, or held by a process known to be gone: take it, counting a transition. */
  | {
      readonly type: 'take';
      readonly transitions: number;
      readonly previous?: string;
      readonly because?: 'expired' | 'holder-gone';
    }
  /** Already ours (e.g. a retried acquire): renew. */
  | { readonly type: 'renew' }
  | {
      readonly type: 'held';
      readonly holder: string;
      /** Seconds since the holder last renewed. */
      readonly ageSeconds: number;
      readonly expiresInSeconds: number;
    };

export function decideLock(
  lease: LockLease | undefined,
  me: string,
  now: number,
  holderGone = false,
): LockDecision {
  if (!lease) return { type: 'create' };
  const holder = lease.holderIdentity ?? '';
  const transitions = lease.leaseTransitions ?? 0;
  if (holder === me) return { type: 'renew' };
  if (!holder) return { type: 'take', transitions: transitions + 1 };
  const renewed = lease.renewTime ? Date.parse(lease.renewTime) : NaN;
  const duration = (lease.leaseDurationSeconds ?? 0) * 1000;
  if (Number.isNaN(renewed) || renewed + duration <= now) {
    return { type: 'take', transitions: transitions + 1, previous: holder, because: 'expired' };
  }
  if (holderGone)
    return { type: 'take', transitions: transitions + 1, previous: holder, because: 'holder-gone' };
  return {
    type: 'held',
    holder,
    ageSeconds: Math.max(0, Math.round((now - renewed) / 1000)),
    expiresInSeconds: Math.max(0, Math.ceil((renewed + duration - now) / 1000)),
  };
}

/** MicroTime as the API server writes it: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
