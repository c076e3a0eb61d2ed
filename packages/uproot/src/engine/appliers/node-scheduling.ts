/**
 * `cordon-nodes` / `uncordon-nodes`: nodes made (un)schedulable like kubectl, and undone node by node (only
 * the nodes this change flipped go back).
 */
import type { Change, StepId } from '../../core/model/plan-types.js';
import type { Backup, Journal } from '../journal/journal-schema.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { ChangeOutcome } from '../run-plan.js';
import type { ChangeApplier, UndoContext } from './applier-types.js';
import type { ClusterApplierDeps } from './object-changes.js';
import { nodeScheduling, setSchedulable } from './object-writer.js';

type Scheduling = Extract<Change, { type: 'cordon-nodes' | 'uncordon-nodes' }>;

export function schedulingApplier(deps: ClusterApplierDeps): ChangeApplier<Scheduling> {
  const objects = () => deps.objectsFor('downstream');
  return {
    capture: async (change): Promise<Backup> => ({
      type: 'node-scheduling',
      nodes: await nodeScheduling(objects(), change.selector),
    }),
    apply: async (change, _backup, ctx): Promise<ChangeOutcome> => {
      const cordon = change.type === 'cordon-nodes';
      // An uncordon lifts only uproot's own cordon: the nodes the plan's cordon-nodes change (same selector)
      // flipped. A node someone else cordoned (before the migration, or Rancher draining it now) is theirs to
      // uncordon; with drain disabled, Rancher's roll uncordons nothing (rancher/rancher pkg/capr/planner/drain.go).
      const only =
        !cordon && cordonsEarlier(ctx.journal, ctx.step.id, change.selector)
          ? cordonedEarlier(ctx.journal, ctx.step.id, change.selector)
          : undefined;
      const result = await setSchedulable(objects(), change.selector, cordon, only);
      return {
        type: 'done',
        record: {
          outcome: result.flipped.length > 0 ? 'changed' : 'unchanged',
          nodes: [...result.flipped],
          detail: `${cordon ? 'cordoned' : 'uncordoned'} ${result.flipped.length} of ${result.nodes.length} node(s) matching ${change.selector}`,
        },
      };
    },
    undo: async (change, backup, ctx: UndoContext): Promise<UndoOutcome> => {
      const cordon = change.type === 'cordon-nodes';
      // Only the nodes this change flipped go back; a node cordoned before the migration stays cordoned.
      // An uncordon's own nodes are its record (a crash in it is covered by cordonedEarlier below).
      const own = cordon
        ? cordonedBy(ctx.record?.nodes, backup)
        : (ctx.record?.nodes ??
          (backup?.type === 'node-scheduling'
            ? backup.nodes.filter((n) => n.unschedulable).map((n) => n.name)
            : []));
      // Undoing an uncordon returns to the state after the plan's cordon, even when someone else (Rancher's
      // roll) uncordoned the nodes first and this change found nothing to flip.
      const flipped = cordon
        ? own
        : [...new Set([...own, ...cordonedEarlier(ctx.journal, ctx.step.id, change.selector)])];
      if (flipped.length === 0)
        return {
          type: 'nothing-to-undo',
          detail: `no node was ${cordon ? 'cordoned' : 'uncordoned'} by this step`,
        };
      const result = await setSchedulable(objects(), change.selector, !cordon, flipped);
      return {
        type: 'undone',
        detail: `${cordon ? 'uncordoned' : 'cordoned'} ${result.flipped.length} node(s) again`,
      };
    },
  };
}

/** Whether the plan has a cordon-nodes change (same selector) before this step. */
function cordonsEarlier(journal: Journal, before: StepId, selector: string): boolean {
  const index = journal.plan.steps.findIndex((s) => s.id === before);
  return journal.plan.steps
    .slice(0, index < 0 ? undefined : index)
    .some((s) => s.changes.some((c) => c.type === 'cordon-nodes' && c.selector === selector));
}

/**
 * The nodes an earlier cordon-nodes change of the plan (same selector) cordoned and that are not undone yet:
 * what undoing a later uncordon must cordon again.
 */
export function cordonedEarlier(journal: Journal, before: StepId, selector: string): string[] {
  const out: string[] = [];
  for (const step of journal.plan.steps) {
    if (step.id === before) break;
    const record = journal.steps.find((s) => s.id === step.id);
    if (!record || record.state === 'pending' || record.state === 'rolled-back') continue;
    step.changes.forEach((change, index) => {
      if (change.type !== 'cordon-nodes' || change.selector !== selector) return;
      const nodes = record.changes.find((c) => c.change === index)?.nodes;
      const backup = record.backups.find((b) => b.change === index)?.backup;
      out.push(...cordonedBy(nodes, backup));
    });
  }
  return [...new Set(out)];
}

/**
 * The nodes a cordon change flipped: those its record names, and those its backup (read before the first
 * write) shows schedulable. The backup matters after a crash in the middle of the change: the patches before
 * the crash landed but were not recorded, and the change done again on resume finds those nodes already
 * cordoned, so its record leaves them out. A node cordoned before the change (a user's own) is in neither.
 */
function cordonedBy(recorded: readonly string[] | undefined, backup: Backup | undefined): string[] {
  const before =
    backup?.type === 'node-scheduling' ? backup.nodes.filter((n) => !n.unschedulable).map((n) => n.name) : [];
  return [...new Set([...(recorded ?? []), ...before])];
}
