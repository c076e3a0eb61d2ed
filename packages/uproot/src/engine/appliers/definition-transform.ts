/** The transformation of a cluster definition for one change: the distribution's, else the recorded patch. */
import type { Change } from '../../core/model/plan-types.js';
import type { JsonRecord } from '../object-diff/json.js';
import { applyPatchIdempotently } from '../object-diff/lenient-patch.js';
import type { StepTransform } from './applier-types.js';

export function transformDefinition(
  transform: StepTransform | undefined,
  stepId: Parameters<StepTransform>[0],
  current: JsonRecord,
  change: Extract<Change, { type: 'edit-cluster-definition' }>,
): JsonRecord {
  return transform?.(stepId, current, change) ?? applyPatchIdempotently(current, change.patch);
}
