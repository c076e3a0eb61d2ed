/**
 * What may be stored in the journal: objects without managedFields (noise) and never a Secret's data (the
 * journal is a ConfigMap anyone with read access to kube-system can see, and a local file).
 */
import type { Change, MigrationPlan } from '../core/model/plan-types.js';
import { cloneJson, isRecord, type JsonRecord } from './object-diff/json.js';

export const REDACTED = '<redacted by uproot>';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function isSecret(object: unknown): boolean {
  return (
    isRecord(object) &&
    object.kind === 'Secret' &&
    (object.apiVersion === 'v1' || object.apiVersion === undefined)
  );
}

/** A copy of an object fit for the journal. */
export function sanitizeObject(object: JsonRecord): JsonRecord {
  const out = cloneJson(object);
  const metadata = isRecord(out.metadata) ? out.metadata : undefined;
  if (metadata) delete metadata.managedFields;
  if (isSecret(out)) {
    for (const key of ['data', 'stringData'] as const) {
      if (isRecord(out[key])) out[key] = Object.fromEntries(Object.keys(out[key]).map((k) => [k, REDACTED]));
    }
    const annotations = metadata && isRecord(metadata.annotations) ? metadata.annotations : undefined;
    if (annotations && LAST_APPLIED in annotations) annotations[LAST_APPLIED] = REDACTED;
  }
  return out;
}

/** Whether a change carries a Secret whose content was redacted (it cannot be re-applied from the journal). */
export function carriesRedactedSecret(change: Change): boolean {
  return (
    change.type === 'apply-object' &&
    isSecret(change.object) &&
    JSON.stringify(change.object).includes(REDACTED)
  );
}

/** The plan as stored in the journal: Secret data removed, artifacts dropped (they are files the user has). */
export function sanitizePlan(plan: MigrationPlan): MigrationPlan {
  return {
    ...plan,
    artifacts: [],
    steps: plan.steps.map((step) => ({
      ...step,
      changes: step.changes.map(sanitizeChange),
      undo: { ...step.undo, changes: step.undo.changes.map(sanitizeChange) },
    })),
  };
}

function sanitizeChange(change: Change): Change {
  if (change.type === 'apply-object' && isSecret(change.object)) {
    return { ...change, object: sanitizeObject(change.object) };
  }
  return change;
}

const VOLATILE_METADATA = [
  'resourceVersion',
  'generation',
  'managedFields',
  'uid',
  'creationTimestamp',
  'selfLink',
];

/**
 * The part of an object a step can change: without status and the metadata the API server maintains, so a
 * diff between a backup and a later read shows only what someone (the step, or a person) set.
 */
export function comparable(object: JsonRecord): JsonRecord {
  const out = sanitizeObject(object);
  delete out.status;
  if (isRecord(out.metadata)) {
    for (const key of VOLATILE_METADATA) delete out.metadata[key];
  }
  return out;
}
