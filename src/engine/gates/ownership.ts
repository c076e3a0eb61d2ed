/**
 * `no-ownership-overlap`: nothing in the observed lease timeline shows two managers owning the same lease at
 * once. The full inference (which controllers each manager runs, across the 1.28 rename) plugs in through
 * `OwnershipInference`; without one, the conservative built-in check looks for a holder change where the new
 * holder acquired the lease before the previous holder's last renewal — an overlap under any reading.
 */
import type { LeaseObservation } from '../journal/journal-schema.js';
import { fail, pass, type GateVerdict } from './gate-verdict.js';

export interface OwnershipOverlap {
  readonly lease: string;
  readonly description: string;
}

export type OwnershipInference = (timeline: readonly LeaseObservation[]) => readonly OwnershipOverlap[];

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

export function evaluateNoOwnershipOverlap(
  timeline: readonly LeaseObservation[],
  inference: OwnershipInference = leaseOverlapInference,
): GateVerdict {
  const overlaps = inference(timeline);
  if (overlaps.length > 0) {
    return fail(
      `the lease timeline shows overlapping ownership: ${overlaps.map((o) => o.description).join('; ')}`,
      'two managers may have run the same controllers; check both managers\u2019 leader-migration configuration (names of both eras, see `uproot leader-migration validate`) and their logs',
    );
  }
  return pass(`no overlap in ${timeline.length} lease observation(s)`);
}
