/**
 * `manual`: instructions for a person, confirmed at the terminal or with --manual-done; also how other
 * appliers hand a step to a person (kubeadm's --manifests-out).
 */
import type { Change } from '../../core/model/plan-types.js';
import type { ChangeOutcome } from '../run-plan.js';
import type { ApplyContext, ChangeApplier } from './applier-types.js';
import type { ClusterApplierDeps } from './object-changes.js';

type Manual = Extract<Change, { type: 'manual' }>;

/** Asks whether a person did what `instructions` say; needs-person when nobody can answer. */
export async function confirmManual(
  deps: Pick<ClusterApplierDeps, 'confirm' | 'manualDone' | 'notify'>,
  ctx: ApplyContext,
  instructions: string,
): Promise<ChangeOutcome> {
  if (deps.manualDone.has(ctx.step.id)) {
    return { type: 'done', record: { outcome: 'confirmed', detail: 'confirmed with --manual-done' } };
  }
  if (deps.confirm) {
    deps.notify?.({ type: 'manual-action', step: ctx.step.id, instructions });
    if (await deps.confirm(`Step ${ctx.step.id}: done?`)) {
      return { type: 'done', record: { outcome: 'confirmed', detail: 'confirmed at the terminal' } };
    }
  }
  return { type: 'needs-person', instructions };
}

/**
 * A plan's `rke up` instruction, in a step whose cluster.yml edit uproot already rolled out by running
 * `rke up` itself (the RKE applier does, with --rke-binary): nothing is left for a person to do.
 */
export function rolledOutByEngine(change: Manual, ctx: ApplyContext): string | undefined {
  if (!/^\s*rke up\b/.test(change.instructions)) return undefined;
  const record = ctx.journal.steps.find((s) => s.id === ctx.step.id);
  const fileEdit = ctx.step.changes.findIndex(
    (c) => c.type === 'edit-cluster-definition' && 'file' in c.target,
  );
  if (!record || record.state === 'pending' || fileEdit < 0) return undefined;
  const done = record.changes.find((c) => c.change === fileEdit);
  return done
    ? `uproot ran rke up itself after writing the cluster file (${done.detail ?? 'done'})`
    : undefined;
}

export function manualApplier(deps: ClusterApplierDeps): ChangeApplier<Manual> {
  return {
    capture: async () => ({
      type: 'none',
      reason: 'a manual change: uproot cannot read what a person will do',
    }),
    apply: async (change, _backup, ctx) => {
      const ran = rolledOutByEngine(change, ctx);
      if (ran) return { type: 'done', record: { outcome: 'confirmed', detail: ran } };
      return confirmManual(deps, ctx, change.instructions);
    },
    undo: async () => ({
      type: 'nothing-to-undo',
      detail: 'manual changes are undone by the plan\u2019s undo instructions',
    }),
  };
}
