/**
 * The shared mechanics of changing a Kubernetes object safely, used by the RKE2 and cluster appliers:
 * backup as read (sanitized), optimistic transformation, the fields set recorded, and the inverse applied to
 * the live object (keeping everybody else's edits).
 */
import type { ObjectRef } from '../../core/model/plan-types.js';
import type { Backup, FieldChange } from '../journal/journal-schema.js';
import { diffFields, invertFields } from '../object-diff/field-diff.js';
import type { JsonRecord } from '../object-diff/json.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { ChangeOutcome } from '../run-plan.js';
import { comparable, sanitizeObject } from '../sanitize.js';
import type { KubeObject, ObjectKey, ObjectStore } from '../ports.js';
import { describeRef, updateObject } from './object-writer.js';

export function keyOfRef(ref: ObjectRef): ObjectKey {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
  };
}

export async function captureObject(objects: ObjectStore, ref: ObjectRef): Promise<Backup> {
  const live = await objects.get(keyOfRef(ref));
  return live ? { type: 'object', ref, object: sanitizeObject(live) } : { type: 'object-absent', ref };
}

/** The fields the change set: from the backup (the state before the step) to `after`. */
export function fieldsSet(backup: Backup | undefined, after: KubeObject | undefined): FieldChange[] {
  const before = backup?.type === 'object' ? comparable(backup.object) : {};
  return diffFields(before, after ? comparable(after) : {}, { arrays: 'atomic' });
}

/**
 * Applies a pure transformation with optimistic concurrency and records the fields it sets. Those are what
 * the transformation does to the backup (the object before the step), never a diff against the live object,
 * which would count a concurrent edit (Rancher's, a person's) as the step's and undo it on rollback.
 */
export async function applyTransform(
  objects: ObjectStore,
  ref: ObjectRef,
  backup: Backup | undefined,
  transform: (live: JsonRecord) => JsonRecord,
): Promise<ChangeOutcome> {
  const result = await updateObject(objects, keyOfRef(ref), (live) => transform(live) as KubeObject);
  const fields =
    backup?.type === 'object'
      ? fieldsSet(backup, transform(backup.object) as KubeObject)
      : result.type === 'updated'
        ? diffFields(comparable(result.before), comparable(result.after), { arrays: 'atomic' })
        : [];
  return {
    type: 'done',
    record: {
      outcome: result.type === 'updated' ? 'changed' : 'unchanged',
      fields,
      detail:
        result.type === 'updated'
          ? `updated ${describeRef(keyOfRef(ref))} (resourceVersion ${result.after.metadata?.resourceVersion ?? '?'}${result.conflicts ? `, after ${result.conflicts} concurrent change(s)` : ''})`
          : `${describeRef(keyOfRef(ref))} already as planned`,
    },
  };
}

/** Undoes recorded fields on the live object; conflicts leave the object untouched unless forced. */
export async function undoFields(
  objects: ObjectStore,
  ref: ObjectRef,
  fields: readonly FieldChange[],
  force: boolean,
): Promise<UndoOutcome> {
  if (fields.length === 0)
    return { type: 'nothing-to-undo', detail: `${describeRef(keyOfRef(ref))}: the step set no field` };
  let conflicts: readonly string[] = [];
  const live = await objects.get(keyOfRef(ref));
  if (!live) return { type: 'nothing-to-undo', detail: `${describeRef(keyOfRef(ref))} no longer exists` };
  const result = await updateObject(objects, keyOfRef(ref), (current) => {
    const inverse = invertFields(current, fields, { force });
    conflicts = inverse.conflicts;
    return conflicts.length > 0 && !force ? current : (inverse.value as KubeObject);
  });
  if (conflicts.length > 0 && !force) {
    return { type: 'conflict', conflicts: conflicts.map((c) => `${describeRef(keyOfRef(ref))}: ${c}`) };
  }
  return result.type === 'updated'
    ? {
        type: 'undone',
        detail: `restored ${fields.length} field(s) of ${describeRef(keyOfRef(ref))}${conflicts.length ? ` (forced over ${conflicts.length} later edit(s))` : ''}`,
      }
    : { type: 'nothing-to-undo', detail: `${describeRef(keyOfRef(ref))} is already as before` };
}
