/**
 * Objects changed directly in the cluster, whatever the distribution: RBAC and other object patches
 * (`patch-object`), and installing objects such as the CCM where the distribution does not (`apply-object`,
 * server-side apply). Also the dependencies every in-cluster applier shares.
 */
import type { Change, StepId } from '../../core/model/plan-types.js';
import type { EventSink } from '../events.js';
import { cloneJson, type JsonRecord } from '../object-diff/json.js';
import { applyPatchIdempotently } from '../object-diff/lenient-patch.js';
import { mergePatch } from '../object-diff/merge-patch.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { ChangeOutcome } from '../run-plan.js';
import { hasApiStatus, keyOf, type KubeObject, type ObjectStore } from '../ports.js';
import type { ApplyContext, ChangeApplier, Confirm, StepTransform, UndoContext } from './applier-types.js';
import { applyTransform, captureObject, fieldsSet, keyOfRef, undoFields } from './object-edits.js';
import { describeRef } from './object-writer.js';

type PatchObject = Extract<Change, { type: 'patch-object' }>;
type ApplyObject = Extract<Change, { type: 'apply-object' }>;

export interface ClusterApplierDeps {
  readonly objectsFor: (api: 'downstream' | 'management') => ObjectStore;
  /** Asks a person (only on a terminal). */
  readonly confirm: Confirm;
  /** Steps whose manual changes the person already confirmed (--manual-done). */
  readonly manualDone: ReadonlySet<StepId>;
  readonly notify?: EventSink;
  /** The distribution's transformation; preferred over a recorded patch (e.g. a whole `rules` list). */
  readonly transform?: StepTransform;
}

/**
 * The local effect of a change on an object: the distribution's transformation when it has one for this
 * object (a recorded merge patch of a whole list would overwrite edits made since planning), else the patch.
 */
function patched(
  live: JsonRecord,
  change: PatchObject,
  ctx: ApplyContext,
  transform?: StepTransform,
): JsonRecord {
  const own = transform?.(ctx.step.id, live, change);
  if (own) return own;
  if (change.patchType === 'json') return applyPatchIdempotently(live, change.patch as never);
  return mergePatch(live, change.patch) as JsonRecord;
}

export function patchObjectApplier(deps: ClusterApplierDeps): ChangeApplier<PatchObject> {
  return {
    capture: (change) => captureObject(deps.objectsFor(change.target.api), change.target),
    apply: async (change, backup, ctx): Promise<ChangeOutcome> => {
      const objects = deps.objectsFor(change.target.api);
      if (change.patchType !== 'strategic' || deps.transform) {
        return applyTransform(objects, change.target, backup, (live) =>
          patched(live, change, ctx, deps.transform),
        );
      }
      // Strategic merge needs the server's knowledge of list keys: send the patch (idempotent by nature).
      const ref = keyOfRef(change.target);
      const before = await objects.get(ref);
      const after = await objects.patch(ref, 'strategic', change.patch);
      const changed = before?.metadata?.resourceVersion !== after.metadata?.resourceVersion;
      return {
        type: 'done',
        record: {
          outcome: changed ? 'changed' : 'unchanged',
          // What this patch changed on the object as it was just before (the server knows SMP's list keys).
          fields: before
            ? fieldsSet({ type: 'object', ref: change.target, object: before }, after)
            : fieldsSet(backup, after),
          detail: `${changed ? 'patched' : 'already as planned:'} ${describeRef(ref)}`,
        },
      };
    },
    undo: (change, backup, ctx: UndoContext): Promise<UndoOutcome> => {
      const fields =
        ctx.record?.fields ??
        (backup?.type === 'object'
          ? fieldsSet(backup, patched(backup.object, change, ctx, deps.transform) as KubeObject)
          : []);
      return undoFields(deps.objectsFor(change.target.api), change.target, fields, ctx.force);
    },
  };
}

export function applyObjectApplier(deps: ClusterApplierDeps): ChangeApplier<ApplyObject> {
  const refOf = (change: ApplyObject) => ({ api: change.api, ...keyOf(change.object as KubeObject) });
  return {
    capture: (change) => captureObject(deps.objectsFor(change.api), refOf(change)),
    apply: async (change, backup): Promise<ChangeOutcome> => {
      const objects = deps.objectsFor(change.api);
      const object = cloneJson(change.object) as KubeObject;
      let after: KubeObject;
      try {
        after = await objects.apply(object);
      } catch (error) {
        // An API server without server-side apply: create, or merge onto the live object.
        if (!hasApiStatus(error, 415) && !hasApiStatus(error, 405)) throw error;
        const live = await objects.get(keyOf(object));
        after = live
          ? await objects.replace({
              ...(mergePatch(live, object) as KubeObject),
              metadata: {
                ...live.metadata,
                ...object.metadata,
                resourceVersion: live.metadata?.resourceVersion,
              },
            })
          : await objects.create(object);
      }
      const previous = backup?.type === 'object' ? backup.object.metadata : undefined;
      const changed =
        (previous as { resourceVersion?: string } | undefined)?.resourceVersion !==
        after.metadata?.resourceVersion;
      return {
        type: 'done',
        record: {
          outcome: changed ? 'changed' : 'unchanged',
          // Applied configuration over the backup (merge semantics; lists count as wholes).
          fields:
            backup?.type === 'object'
              ? fieldsSet(backup, mergePatch(backup.object, change.object) as KubeObject)
              : [],
          detail: `${backup?.type === 'object-absent' ? 'created' : changed ? 'updated' : 'already as planned:'} ${describeRef(keyOf(after))}`,
        },
      };
    },
    undo: async (change, backup, ctx: UndoContext): Promise<UndoOutcome> => {
      const objects = deps.objectsFor(change.api);
      const ref = refOf(change);
      if (backup?.type === 'object-absent') {
        const live = await objects.get(keyOfRef(ref));
        if (!live) return { type: 'nothing-to-undo', detail: `${describeRef(ref)} is already gone` };
        await objects.delete(keyOfRef(ref), live.metadata?.uid ? { uid: live.metadata.uid } : undefined);
        return { type: 'undone', detail: `deleted ${describeRef(ref)}, which the step created` };
      }
      const fields =
        ctx.record?.fields ??
        (backup?.type === 'object'
          ? fieldsSet(backup, mergePatch(backup.object, change.object) as KubeObject)
          : []);
      return undoFields(objects, ref, fields, ctx.force);
    },
  };
}
