/**
 * `no-ownership-overlap`: nothing in the observed lease timeline shows two managers running the same
 * controller at once. The judgement is the core's (src/core/ownership/overlaps.ts); the gate words it.
 */
import {
  findOwnershipOverlaps,
  ownershipInference,
  type LeaseRecord,
  type OwnershipEvidence,
  type OwnershipInference,
  type ProfileBasis,
} from '../../core/ownership/index.js';
import { fail, pass, someNames, type GateVerdict } from './gate-verdict.js';

export function evaluateNoOwnershipOverlap(
  timeline: readonly LeaseRecord[],
  inference: OwnershipInference = ownershipInference,
  evidence?: OwnershipEvidence,
): GateVerdict {
  const { overlaps, bases } = findOwnershipOverlaps(timeline, inference, evidence);
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
