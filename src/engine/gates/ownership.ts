/**
 * `no-ownership-overlap`: nothing in the observed lease timeline shows two managers running the same
 * controller at once. Two checks, whose findings are joined:
 * - the conservative lease check: a holder change where the new holder acquired the lease before the
 *   previous holder's last renewal (an overlap under any reading);
 * - with evidence (the managers' pods and the journal's plan), the core's `inferOwnership` with each holder's
 *   profile (ownership-profiles.ts): which controllers each process ran under which lease, across the 1.28
 *   rename, and every span in which two processes ran one.
 */
import type { LeaseObservation } from '../journal/journal-schema.js';
import { fail, pass, someNames, type GateVerdict } from './gate-verdict.js';
import {
  inferProfiledOverlaps,
  type InferredOverlap,
  type OwnershipEvidence,
} from './ownership-inference.js';
import type { ProfileBasis } from './ownership-profiles.js';

export type { OwnershipEvidence } from './ownership-inference.js';

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
  timeline: readonly LeaseObservation[],
  evidence?: OwnershipEvidence,
) => readonly OwnershipOverlap[];

export const leaseOverlapInference: OwnershipInference = (timeline) => {
  const overlaps: OwnershipOverlap[] = [];
  const lastByLease = new Map<string, LeaseObservation>();
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

export function evaluateNoOwnershipOverlap(
  timeline: readonly LeaseObservation[],
  inference: OwnershipInference = ownershipInference,
  evidence?: OwnershipEvidence,
): GateVerdict {
  let overlaps: readonly OwnershipOverlap[];
  let bases: Partial<Record<ProfileBasis, number>> = {};
  if (evidence && inference === ownershipInference) {
    // The default inference, run once here to also tell how the holders were judged.
    const profiled = inferProfiledOverlaps(timeline, evidence);
    overlaps = [...leaseOverlapInference(timeline), ...profiled.overlaps.map(asOwnershipOverlap)];
    bases = profiled.bases;
  } else {
    overlaps = inference(timeline, evidence);
  }
  if (overlaps.length > 0) {
    const controllers = [...new Set(overlaps.flatMap((o) => o.controllers ?? []))].sort();
    return fail(
      `overlapping ownership: ${someNames(
        overlaps.map((o) => o.description),
        3,
      )}`,
      controllers.length > 0
        ? `give every manager that runs ${controllers.join(', ')} --enable-leader-migration and a configuration naming them in both eras (\`uproot leader-migration validate\`), then \`uproot migrate --resume\`; or \`uproot rollback\``
        : 'two managers may have run the same controllers; check both managers\u2019 leader-migration configuration (names of both eras, see `uproot leader-migration validate`) and their logs',
    );
  }
  return pass(`no overlap in ${timeline.length} lease observation(s)${describeBases(bases)}`);
}

function describeBases(bases: Partial<Record<ProfileBasis, number>>): string {
  const words: Record<ProfileBasis, string> = {
    pod: 'by their pods',
    'pod-or-plan': 'by their pods or the plan',
    plan: 'by the plan',
    default: 'as running every controller they have',
  };
  const parts = (Object.keys(words) as ProfileBasis[]).flatMap((b) =>
    bases[b] ? [`${bases[b]} ${words[b]}`] : [],
  );
  return parts.length > 0 ? `; holders judged ${parts.join(', ')}` : '';
}
