/**
 * A step that edits the cluster definition (a Rancher Cluster object or a cluster.yml): the change with its
 * JSON patch and reviewable diff, the undo, and the file as it stands after the step.
 */
import type { Change, ObjectRef } from '../../plan/plan-types.js';
import { deepEqual } from './json-value.js';
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

/** `steps/03-install-ccm/cluster.yaml`: where --out puts the file as it stands after a step. */
export function stepArtifactPath(index: number, stepId: string, fileName: string): string {
  return `steps/${String(index + 1).padStart(2, '0')}-${stepId}/${fileName}`;
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || 'cluster.yaml';
}
