import { isJsonObject, ownValue, setOwn } from '../kube-object.js';

/** RFC 7396 JSON merge patch. Returns a new value; `target` is not modified. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergePatch(ownValue(result, key), value));
  }
  return result;
}
