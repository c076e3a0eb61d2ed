/**
 * What `verify` and `status` judge ownership with, read the way the `no-ownership-overlap` gate reads it: the
 * managers' pods now (each lease holder's flags) and the journal (the plan's phases for holders whose pod is
 * gone). Reading the pods may fail; the judgement is then made from the plan alone, more strictly.
 */
import { readGateSnapshot } from '../engine/gates/evaluate-gate.js';
import type { OwnershipEvidence } from '../core/ownership/index.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import type { GateReader } from '../engine/ports.js';
import { controlPlaneSelectorFor, distroFacts } from '../core/distros/distro-facts.js';

export async function readOwnershipEvidence(
  journal: Journal,
  reader: GateReader,
  now: number,
): Promise<OwnershipEvidence> {
  const gate = { type: 'no-ownership-overlap' } as const;
  const snapshot = await readGateSnapshot(gate, reader, {
    facts: distroFacts(journal.cluster.distro),
    controlPlaneSelector: controlPlaneSelectorFor(journal.plan),
    baseline: journal.baseline.loadBalancers,
    timeline: journal.leaseTimeline,
    history: journal,
  });
  const pods = snapshot.type === 'no-ownership-overlap' ? snapshot.pods : undefined;
  return { now, history: journal, ...(pods ? { pods } : {}) };
}
