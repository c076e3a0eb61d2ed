/**
 * Did two managers run the same controller at once? Two inferences over the journal's lease records, whose
 * findings are joined:
 * - the conservative lease check: a holder change where the new holder acquired the lease before the
 *   previous holder's last renewal (an overlap under any reading);
 * - with evidence (the managers' pods and the journal's plan), `inferOwnership` with each holder's profile
 *   (holder-profiles.ts): which controllers each process ran under which lease, across the 1.28 rename, and
 *   every span in which two processes ran one.
 * The `no-ownership-overlap` gate, `verify` and `status` judge with these.
 */
import type { ProfileBasis } from './holder-profiles.js';
import type { LeaseRecord } from './lease-record.js';
import { inferProfiledOverlaps, type InferredOverlap, type OwnershipEvidence } from './profiled-inference.js';

export interface OwnershipOverlap {
  /** The lease (namespace/name) the lease check found it on, or the main leases of the processes inferred. */
  readonly lease: string;
  readonly description: string;
  /** Inferred overlaps: the logical controllers, the processes (lease identities) and the span (ISO 8601). */
  readonly controllers?: readonly string[];
  readonly identities?: readonly string[];
  readonly from?: string;
  readonly to?: string;
}

/** Finds overlaps in a timeline; `evidence` (pods, plan, the time of the look) lets it infer with profiles. */
export type OwnershipInference = (
  timeline: readonly LeaseRecord[],
  evidence?: OwnershipEvidence,
) => readonly OwnershipOverlap[];

export const leaseOverlapInference: OwnershipInference = (timeline) => {
  const overlaps: OwnershipOverlap[] = [];
  const lastByLease = new Map<string, LeaseRecord>();
  for (const obs of timeline) {
    const key = `${obs.namespace}/${obs.name}`;
    const previous = lastByLease.get(key);
    lastByLease.set(key, obs);
    if (!previous || !previous.holder || !obs.holder || previous.holder === obs.holder) continue;
    const acquired = obs.acquireTime ? Date.parse(obs.acquireTime) : NaN;
    const lastRenew = previous.renewTime ? Date.parse(previous.renewTime) : NaN;
    if (!Number.isNaN(acquired) && !Number.isNaN(lastRenew) && acquired < lastRenew) {
      overlaps.push({
        lease: key,
        description: `${obs.holder} acquired ${key} at ${obs.acquireTime} while ${previous.holder} still renewed it at ${previous.renewTime}`,
      });
    }
  }
  return overlaps;
};

/** The profiled inference's overlaps alone (none without evidence). */
export const profiledOwnershipInference: OwnershipInference = (timeline, evidence) =>
  evidence ? inferProfiledOverlaps(timeline, evidence).overlaps.map(asOwnershipOverlap) : [];

function asOwnershipOverlap(o: InferredOverlap): OwnershipOverlap {
  return {
    lease: 'kube-system/kube-controller-manager, kube-system/cloud-controller-manager',
    description: o.description,
    controllers: o.controllers,
    identities: o.identities,
    from: new Date(o.from).toISOString(),
    to: new Date(o.to).toISOString(),
  };
}

/** The default: the union of the lease check and, given evidence, the profiled inference. */
export const ownershipInference: OwnershipInference = (timeline, evidence) => [
  ...leaseOverlapInference(timeline),
  ...profiledOwnershipInference(timeline, evidence),
];

export interface OwnershipFindings {
  readonly overlaps: readonly OwnershipOverlap[];
  /** How many holders the profiled inference judged on each basis (the default inference only). */
  readonly bases: Readonly<Partial<Record<ProfileBasis, number>>>;
}

/** What `inference` finds in `timeline`; the default inference, given evidence, also tells how it judged. */
export function findOwnershipOverlaps(
  timeline: readonly LeaseRecord[],
  inference: OwnershipInference = ownershipInference,
  evidence?: OwnershipEvidence,
): OwnershipFindings {
  if (!evidence || inference !== ownershipInference)
    return { overlaps: inference(timeline, evidence), bases: {} };
  // The default inference, run once here to also tell how the holders were judged.
  const profiled = inferProfiledOverlaps(timeline, evidence);
  return {
    overlaps: [...leaseOverlapInference(timeline), ...profiled.overlaps.map(asOwnershipOverlap)],
    bases: profiled.bases,
  };
}
