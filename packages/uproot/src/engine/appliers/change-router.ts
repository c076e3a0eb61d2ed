/**
 * Routes each change to its applier and exposes the result as the engine's actions (capture, apply, undo).
 * Exhaustive over the Change union: a new change type does not compile until it is routed.
 */
import type { Change } from '../../core/model/plan-types.js';
import { assertNever, InputError } from '../../errors/index.js';
import type { EngineActions } from '../run-plan.js';
import type { RollbackActions } from '../rollback/run-rollback.js';
import type { BackupEntry } from '../journal/journal-schema.js';
import type { ApplyContext, ChangeApplier } from './applier-types.js';

type Of<T extends Change['type']> = ChangeApplier<Extract<Change, { type: T }>>;

export interface Appliers {
  /** edit-cluster-definition on an object (the Rancher provisioning Cluster). */
  readonly objectDefinition: Of<'edit-cluster-definition'>;
  /** edit-cluster-definition on a file (RKE cluster.yml); absent when not configured. */
  readonly fileDefinition?: Of<'edit-cluster-definition'>;
  readonly nodeFile: Of<'write-file' | 'delete-file'>;
  readonly patchObject: Of<'patch-object'>;
  readonly applyObject: Of<'apply-object'>;
  readonly scheduling: Of<'cordon-nodes' | 'uncordon-nodes'>;
  readonly manual: Of<'manual'>;
}

/** The applier for a change, typed loosely for dispatch (each applier only ever sees its own type). */
export function applierFor(appliers: Appliers, change: Change): ChangeApplier<Change> {
  const as = <T extends Change>(a: ChangeApplier<T>): ChangeApplier<Change> =>
    a as unknown as ChangeApplier<Change>;
  switch (change.type) {
    case 'edit-cluster-definition':
      if ('file' in change.target) {
        if (!appliers.fileDefinition) {
          throw new InputError('UP-MIGRATE-NO-FILE', `the plan edits ${change.target.file}, a cluster file`, {
            location: { field: '--cluster-file', value: change.target.file },
            hint: 'pass --cluster-file with that cluster.yml',
          });
        }
        return as(appliers.fileDefinition);
      }
      return as(appliers.objectDefinition);
    case 'write-file':
    case 'delete-file':
      return as(appliers.nodeFile);
    case 'patch-object':
      return as(appliers.patchObject);
    case 'apply-object':
      return as(appliers.applyObject);
    case 'cordon-nodes':
    case 'uncordon-nodes':
      return as(appliers.scheduling);
    case 'manual':
      return as(appliers.manual);
    default:
      return assertNever(change, 'change type');
  }
}

export type ChangeActions = Pick<EngineActions, 'captureBackups' | 'applyChange'> &
  Pick<RollbackActions, 'undoChange' | 'applyPlanUndo'>;

/** `force`: rollback restores fields someone edited since the step (see invertFields). */
export function changeActions(appliers: Appliers, options: { readonly force?: boolean } = {}): ChangeActions {
  return {
    captureBackups: async (step, indexes) => {
      const out: BackupEntry[] = [];
      for (const index of indexes) {
        const change = step.changes[index]!;
        out.push({
          change: index,
          backup: await applierFor(appliers, change).capture(change, { step, index }),
        });
      }
      return out;
    },
    applyChange: ({ step, change, index, backup, journal }) => {
      const ctx: ApplyContext = { step, index, journal };
      return applierFor(appliers, change).apply(change, backup, ctx);
    },
    undoChange: ({ step, change, index, record, backup, journal }) =>
      applierFor(appliers, change).undo(change, backup, {
        step,
        index,
        journal,
        record,
        force: options.force ?? false,
      }),
    applyPlanUndo: ({ step, change, index, journal }) =>
      applierFor(appliers, change).apply(change, undefined, { step, index, journal }),
  };
}
