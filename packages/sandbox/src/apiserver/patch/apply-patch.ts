import { isJsonObject, type JsonObject } from '../kube-object.js';
import type { ResourceType } from '../registry/resource-type.js';
import { ApiStatusError, unsupportedMediaType } from '../status/api-status-error.js';
import { applyJsonPatch } from './json-patch.js';
import { mergePatch } from './merge-patch.js';
import { genericSchema } from './patch-schema.js';
import { strategicMergePatch } from './strategic-merge-patch.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const CONTENT_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

function acceptedTypes(rt: ResourceType): string[] {
  const base = [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/apply-patch+yaml',
  ];
  return rt.custom ? base : [...base, 'application/strategic-merge-patch+json'];
}

/** Maps a PATCH Content-Type to a patch type; unknown types (and SMP on custom resources) are 415. */
export function patchTypeFor(contentType: string | undefined, rt: ResourceType): PatchType {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = CONTENT_TYPES[media];
  if (type === undefined || (type === 'strategic' && rt.custom))
    throw unsupportedMediaType(acceptedTypes(rt));
  return type;
}

/**
 * Applies a patch of `type` to a mutable copy of the stored object. Server-side apply is approximated as a
 * merge of the applied configuration (strategic for built-in kinds, JSON merge for custom resources):
 * field ownership is not tracked.
 */
export function applyPatch(
  rt: ResourceType,
  original: JsonObject,
  type: PatchType,
  body: unknown,
): JsonObject {
  let result: unknown;
  switch (type) {
    case 'json':
      result = applyJsonPatch(original, body);
      break;
    case 'merge':
      if (!isJsonObject(body)) throw notAnObject();
      result = mergePatch(original, body);
      break;
    case 'strategic':
      result = strategicMergePatch(original, body, rt.patchSchema ?? genericSchema);
      break;
    case 'apply':
      if (!isJsonObject(body)) throw notAnObject();
      result = rt.custom
        ? mergePatch(original, body)
        : strategicMergePatch(original, body, rt.patchSchema ?? genericSchema);
      break;
  }
  if (!isJsonObject(result)) throw notAnObject();
  return result;
}

function notAnObject(): ApiStatusError {
  return new ApiStatusError({
    message: 'the patch produced something that is not an object; the body must be a JSON object',
    reason: 'BadRequest',
    code: 400,
  });
}
