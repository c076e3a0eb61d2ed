/**
 * A step that edits the cluster definition (a Rancher Cluster object or a cluster.yml): the change with its
 * JSON patch and reviewable diff, the undo, and the file as it stands after the step.
 */
import type { Change, ObjectRef, StepId } from '../../model/plan-types.js';
import { deepEqual } from '../../model/json-value.js';
import type { PlanAssembly } from './plan-assembly.js';
import { jsonPatchBetween, unifiedDiff } from './plan-building.js';

export interface DefinitionState {
  readonly object: unknown;
  readonly text: string;
}

export interface DefinitionEdit {
  readonly change: Extract<Change, { type: 'edit-cluster-definition' }>;
  readonly undo: Extract<Change, { type: 'edit-cluster-definition' }>;
  readonly after: DefinitionState;
}

/**
 * `render(object)` returns the whole file with the definition replaced by `object` (comments kept).
 * Returns undefined when the step changes nothing (a step already applied).
 */
export function definitionEdit(options: {
  readonly file: string;
  readonly target: ObjectRef | { file: string };
  readonly before: DefinitionState;
  readonly afterObject: unknown;
  readonly render: (object: unknown) => string;
  readonly description: string;
  readonly undoDescription: string;
}): DefinitionEdit | undefined {
  const { before, afterObject } = options;
  if (deepEqual(before.object, afterObject)) return undefined;
  const afterText = options.render(afterObject);
  return {
    change: {
      type: 'edit-cluster-definition',
      description: options.description,
      target: options.target,
      patch: jsonPatchBetween(before.object, afterObject),
      diff: unifiedDiff(options.file, before.text, afterText),
    },
    undo: {
      type: 'edit-cluster-definition',
      description: options.undoDescription,
      target: options.target,
      patch: jsonPatchBetween(afterObject, before.object),
      diff: unifiedDiff(options.file, afterText, before.text),
    },
    after: { object: afterObject, text: afterText },
  };
}

/** The definition edited step after step; each edit records the file as it stands after its step. */
export interface DefinitionEditor {
  readonly current: DefinitionState;
  /** Applies step `id` to the current definition; undefined when the step changes nothing. */
  edit(id: StepId, description: string, undoDescription: string): DefinitionEdit | undefined;
}

export function definitionEditor(options: {
  readonly file: string;
  readonly target: ObjectRef | { file: string };
  readonly start: DefinitionState;
  readonly render: (object: unknown) => string;
  /** The step's pure transformation of the definition. */
  readonly apply: (id: StepId, object: unknown) => unknown;
  readonly assembly: PlanAssembly;
}): DefinitionEditor {
  const { file, target, render, assembly } = options;
  let current = options.start;
  return {
    get current() {
      return current;
    },
    edit(id, description, undoDescription) {
      const afterObject = options.apply(id, current.object);
      const result = definitionEdit({
        file,
        target,
        before: current,
        afterObject,
        render,
        description,
        undoDescription,
      });
      if (result) {
        current = result.after;
        assembly.addFileAfterStep(id, baseName(file), result.after.text, file);
      }
      return result;
    },
  };
}

/** The edit's change (and the changes that go with it), or none when the step was already applied. */
export function editChanges(edit: DefinitionEdit | undefined, ...also: Change[]): Change[] {
  return edit ? [edit.change, ...also] : [];
}

/** The edit's undo (and the changes that go with it), or none when the step changed nothing. */
export function undoChanges(edit: DefinitionEdit | undefined, ...also: Change[]): Change[] {
  return edit ? [edit.undo, ...also] : [];
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || 'cluster.yaml';
}
