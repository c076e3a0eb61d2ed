/**
 * `edit-cluster-definition` on an object. RKE2 under Rancher: the step edits the provisioning.cattle.io/v1 Cluster in the management cluster. The
 * step's transformation is applied to the Cluster as read and PUT with its resourceVersion; on 409 it is read
 * and transformed again, so edits Rancher or a person made meanwhile survive. Rancher then rolls the change
 * out to the nodes (the cluster-rolled-out gate waits for that).
 */
import type { Change } from '../../core/model/plan-types.js';
import { InternalError } from '../../errors/index.js';
import type { Backup } from '../journal/journal-schema.js';
import type { JsonRecord } from '../object-diff/json.js';
import type { ObjectStore } from '../ports.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { ChangeOutcome } from '../run-plan.js';
import type { ApplyContext, ChangeApplier, StepTransform, UndoContext } from './applier-types.js';
import { transformDefinition } from './definition-transform.js';
import { applyTransform, captureObject, fieldsSet, undoFields } from './object-edits.js';

type EditObject = Extract<Change, { type: 'edit-cluster-definition' }>;

export interface ObjectDefinitionDeps {
  /** Objects in the API the target names (management for Rancher's Cluster). */
  readonly objectsFor: (api: 'downstream' | 'management') => ObjectStore;
  readonly transform?: StepTransform;
}

function refOf(change: EditObject) {
  if ('file' in change.target) {
    throw new InternalError(
      'a file target reached the object applier; this should not happen, please report it',
    );
  }
  return change.target;
}

export function objectDefinitionApplier(deps: ObjectDefinitionDeps): ChangeApplier<EditObject> {
  const transformFor = (change: EditObject, ctx: ApplyContext) => (live: JsonRecord) =>
    transformDefinition(deps.transform, ctx.step.id, live, change);
  return {
    capture: (change) => {
      const ref = refOf(change);
      return captureObject(deps.objectsFor(ref.api), ref);
    },
    apply: (change, backup, ctx): Promise<ChangeOutcome> => {
      const ref = refOf(change);
      return applyTransform(deps.objectsFor(ref.api), ref, backup, transformFor(change, ctx));
    },
    undo: (change, backup: Backup | undefined, ctx: UndoContext): Promise<UndoOutcome> => {
      const ref = refOf(change);
      // Without a record (a crash right after the write), what the step set is what its transformation
      // does to the backup: the transformation is pure.
      const fields =
        ctx.record?.fields ??
        (backup?.type === 'object' ? fieldsSet(backup, transformFor(change, ctx)(backup.object)) : []);
      return undoFields(deps.objectsFor(ref.api), ref, fields, ctx.force);
    },
  };
}
