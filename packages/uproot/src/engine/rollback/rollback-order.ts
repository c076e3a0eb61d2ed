/**
 * Which steps a rollback undoes, in which order, and which gates prove each undo. After undoing step k the
 * cluster is back in the state it had after step k-1, so the gates that held then must hold again (seed 003:
 * with leader migration on, the KCM regains the migration lease). Before the first step, only the invariants
 * that held before the migration are checked.
 */
import type { Gate, MigrationPlan, PlanStep } from '../../core/model/plan-types.js';
import type { Journal } from '../journal/journal-schema.js';
import { upgradeBoundary } from './upgrade-boundary.js';

/**
 * Steps that changed (or may have changed) something, last first, down to (not including) the last started
 * step that changed the Kubernetes version (upgrade-boundary.ts: Kubernetes does not downgrade).
 */
export function stepsToUndo(journal: Journal): PlanStep[] {
  const touched = new Set(
    journal.steps.filter((s) => s.state !== 'pending' && s.state !== 'rolled-back').map((s) => s.id),
  );
  const boundary = upgradeBoundary(journal);
  const from = boundary ? journal.plan.steps.indexOf(boundary.step) + 1 : 0;
  return journal.plan.steps
    .slice(from)
    .filter((s) => touched.has(s.id))
    .reverse();
}

const INVARIANTS: readonly Gate['type'][] = ['load-balancers-kept', 'no-ownership-overlap'];

export function gatesAfterUndo(plan: MigrationPlan, step: PlanStep): Gate[] {
  const index = plan.steps.findIndex((s) => s.id === step.id);
  const earlier = plan.steps.slice(0, Math.max(index, 0));
  const previous = earlier.at(-1);
  // Cordoning is transient during a rollback: Rancher's rolls cordon and uncordon each node they restart, and
  // undoing the cordon step ends it anyway, so nodes-cordoned is not waited for between undos.
  // promise-kept judges a forward step's window; a rollback is the way out and must not be stopped by a gap
  // it cannot undo (no-ownership-overlap still guards it, and status and report show every gap's figure).
  const base = (previous ? previous.gates : invariantGates(plan)).filter(
    (g) => g.type !== 'nodes-cordoned' && g.type !== 'promise-kept',
  );
  const has = (type: Gate['type']): boolean => base.some((g) => g.type === type);
  const extra: Gate[] = [];
  // Undoing a cluster-definition edit sets off another roll (Rancher, rke up): wait for it as the step did.
  const rollout = step.gates.find((g) => g.type === 'cluster-rolled-out');
  if (rollout && !has('cluster-rolled-out')) extra.push(rollout);
  // The step changed the managers' flags: they must be back to what the last earlier gate expected, or to
  // the in-tree provider without leader migration when no earlier step changed them.
  const flags = step.gates.find((g) => g.type === 'control-plane-flags');
  if (flags && !has('control-plane-flags')) {
    const before = earlier.flatMap((s) => s.gates).filter((g) => g.type === 'control-plane-flags');
    extra.push(
      before.at(-1) ?? {
        type: 'control-plane-flags',
        expect: { cloudProvider: 'aws', kcmLeaderMigration: false },
        timeoutSeconds: flags.timeoutSeconds,
      },
    );
  }
  return [...extra, ...base];
}

function invariantGates(plan: MigrationPlan): Gate[] {
  const seen = new Set<string>();
  return plan.steps
    .flatMap((s) => s.gates)
    .filter((g) => {
      if (!INVARIANTS.includes(g.type) || seen.has(g.type)) return false;
      seen.add(g.type);
      return true;
    });
}
