/** RFC 7396 JSON Merge Patch, applied locally (to predict a patch's effect and record what it set). */
import { cloneJson, isRecord, setOwn } from './json.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return cloneJson(patch);
  const out: Record<string, unknown> = isRecord(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwn(out, key, mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value));
  }
  return out;
}
