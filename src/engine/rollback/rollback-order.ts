/**
 * Which steps a rollback undoes, in which order, and which gates prove each undo. After undoing step k the
 * cluster is back in the state it had after step k-1, so the gates that held then must hold again (seed 003:
 * with leader migration on, the KCM regains the migration lease). Before the first step, only the invariants
 * that held before the migration are checked.
 */
import type { Gate, MigrationPlan, PlanStep } from '../../core/plan/plan-types.js';
import type { Journal } from '../journal/journal-schema.js';

/** Steps that changed (or may have changed) something, last first. */
export function stepsToUndo(journal: Journal): PlanStep[] {
  const touched = new Set(
    journal.steps.filter((s) => s.state !== 'pending' && s.state !== 'rolled-back').map((s) => s.id),
  );
  return journal.plan.steps.filter((s) => touched.has(s.id)).reverse();
}

const INVARIANTS: readonly Gate['type'][] = ['load-balancers-kept', 'no-ownership-overlap'];

export function gatesAfterUndo(plan: MigrationPlan, step: PlanStep): Gate[] {
  const index = plan.steps.findIndex((s) => s.id === step.id);
  const previous = index > 0 ? plan.steps[index - 1] : undefined;
  if (previous) return [...previous.gates];
  const all = plan.steps.flatMap((s) => s.gates);
  const seen = new Set<string>();
  return all.filter((g) => {
    if (!INVARIANTS.includes(g.type) || seen.has(g.type)) return false;
    seen.add(g.type);
    return true;
  });
}
