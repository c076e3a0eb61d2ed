/**
 * Changes made directly in the cluster, whatever the distribution: RBAC and other object patches
 * (`patch-object`), installing objects such as the CCM where the distribution does not (`apply-object`,
 * server-side apply), cordon/uncordon like kubectl, and `manual` instructions for a person.
 */
import type { Change, StepId } from '../../core/plan/plan-types.js';
import { isKubeStatus } from '../../adapters/kube/kube-client.js';
import { keyOf, type KubeObject, type KubeObjects } from '../../adapters/kube/kube-objects.js';
import { describeRef, setSchedulable, nodeScheduling } from '../../adapters/kube/object-writer.js';
import type { EventSink } from '../events.js';
import type { Backup, Journal } from '../journal/journal-schema.js';
import { cloneJson, type JsonRecord } from '../object-diff/json.js';
import { applyPatchIdempotently } from '../object-diff/lenient-patch.js';
import { mergePatch } from '../object-diff/merge-patch.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { ChangeOutcome } from '../run-plan.js';
import type { ApplyContext, ChangeApplier, Confirm, StepTransform, UndoContext } from './applier-types.js';
import { applyTransform, captureObject, fieldsSet, keyOfRef, undoFields } from './object-edits.js';

type PatchObject = Extract<Change, { type: 'patch-object' }>;
type ApplyObject = Extract<Change, { type: 'apply-object' }>;
type Scheduling = Extract<Change, { type: 'cordon-nodes' | 'uncordon-nodes' }>;
type Manual = Extract<Change, { type: 'manual' }>;

export interface ClusterApplierDeps {
  readonly objectsFor: (api: 'downstream' | 'management') => KubeObjects;
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
        if (!isKubeStatus(error, 415) && !isKubeStatus(error, 405)) throw error;
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

export function schedulingApplier(deps: ClusterApplierDeps): ChangeApplier<Scheduling> {
  const objects = () => deps.objectsFor('downstream');
  return {
    capture: async (change): Promise<Backup> => ({
      type: 'node-scheduling',
      nodes: await nodeScheduling(objects(), change.selector),
    }),
    apply: async (change): Promise<ChangeOutcome> => {
      const cordon = change.type === 'cordon-nodes';
      const result = await setSchedulable(objects(), change.selector, cordon);
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
      const own =
        ctx.record?.nodes ??
        (backup?.type === 'node-scheduling'
          ? backup.nodes.filter((n) => n.unschedulable !== cordon).map((n) => n.name)
          : []);
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
      out.push(...(record.changes.find((c) => c.change === index)?.nodes ?? []));
    });
  }
  return out;
}

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
