/**
 * One run seen two ways: the ledger's ground truth (what each manager process recorded) and the timeline an
 * outside observer infers from the leases alone, compared. The rehearsals judge their runs with it.
 */
import type { LeaseObservation } from '../../election/model/index.js';
import type { LogicalController } from '../leader-migration/index.js';
import { compareOwnership, type OwnershipDisagreement } from './compare.js';
import type { TimeSpan } from './intervals.js';
import { analyzeLedger, type LedgerAnalysis, type LedgerEntry } from './ledger.js';
import { inferOwnership, type InferredTimeline, type TimelineInput } from './lease-timeline.js';

export interface OwnershipViewsInput {
  readonly entries: readonly LedgerEntry[];
  readonly observations: readonly LeaseObservation[];
  readonly profiles: TimelineInput['profiles'];
  readonly identityProfiles?: TimelineInput['identityProfiles'];
  readonly window: TimeSpan;
  /** The ledger's logical controllers (default: the ones the timeline infers). */
  readonly controllers?: readonly string[];
  /** The logical controllers the timeline infers (default: INFERRED_CONTROLLERS). */
  readonly inferred?: readonly LogicalController[];
  /** How long after a change of owner a disagreement still counts as observation lag. */
  readonly toleranceMs: number;
  /** The controllers compared (default: every one of the ledger's). */
  readonly compared?: readonly string[];
}

export interface OwnershipViews {
  readonly ledger: LedgerAnalysis;
  readonly timeline: InferredTimeline;
  /** Where the outside timeline and the ledger disagree; `explained` ones are observation lag. */
  readonly disagreements: readonly OwnershipDisagreement[];
}

export function ownershipViews(input: OwnershipViewsInput): OwnershipViews {
  const timeline = inferOwnership({
    observations: input.observations,
    profiles: input.profiles,
    ...(input.identityProfiles ? { identityProfiles: input.identityProfiles } : {}),
    window: input.window,
    ...(input.inferred ? { controllers: input.inferred } : {}),
  });
  const ledger = analyzeLedger(input.entries, {
    window: input.window,
    controllers: input.controllers ?? Object.keys(timeline.controllers),
  });
  const disagreements = compareOwnership(ledger, timeline, {
    toleranceMs: input.toleranceMs,
    ...(input.compared ? { controllers: input.compared } : {}),
  });
  return { ledger, timeline, disagreements };
}
