/**
 * What `verify` and `status` judge ownership with, read the way the `no-ownership-overlap` gate reads it: the
 * managers' pods now (each lease holder's flags) and the journal (the plan's phases for holders whose pod is
 * gone). Reading the pods may fail; the judgement is then made from the plan alone, more strictly.
 */
import type { KubeGateReader } from '../adapters/kube/gate-reader.js';
import { readGateSnapshot } from '../engine/gates/evaluate-gate.js';
import type { OwnershipEvidence } from '../engine/gates/ownership.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import { controlPlaneSelectorFor } from '../engine/session/journal-location.js';

export async function readOwnershipEvidence(
  journal: Journal,
  reader: KubeGateReader,
  now: number,
): Promise<OwnershipEvidence> {
  const gate = { type: 'no-ownership-overlap' } as const;
  const snapshot = await readGateSnapshot(gate, reader, {
    distro: journal.cluster.distro,
    controlPlaneSelector: controlPlaneSelectorFor(journal.plan),
    baseline: journal.baseline.loadBalancers,
    timeline: journal.leaseTimeline,
    history: journal,
  });
  const pods = snapshot.type === 'no-ownership-overlap' ? snapshot.pods : undefined;
  return { now, history: journal, ...(pods ? { pods } : {}) };
}
