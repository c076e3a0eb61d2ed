import { isJsonObject, jsonEqual, ownValue, setOwn, type JsonObject } from '../kube-object.js';
import { ApiStatusError } from '../status/api-status-error.js';
import type { SmpField, SmpSchema } from './patch-schema.js';

const ORDER_PREFIX = '$setElementOrder/';
const DELETE_PRIMITIVE_PREFIX = '$deleteFromPrimitiveList/';

function invalidPatch(message: string): ApiStatusError {
  return new ApiStatusError({ message, reason: 'BadRequest', code: 400 });
}

const DELETED = Symbol('deleted');

/**
 * Strategic merge patch as the API server applies it: like a JSON merge patch, except that lists the schema
 * marks with a merge key merge element by element, primitive lists marked `merge` union, and the
 * directives `$patch` (replace | delete | merge), `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>` are honoured. Lists the schema does not know are replaced, as upstream.
 */
export function strategicMergePatch(
  original: unknown,
  patch: unknown,
  schema: SmpSchema | undefined,
): unknown {
  if (!isJsonObject(patch))
    throw invalidPatch('invalid strategic merge patch: the patch must be a JSON object');
  const merged = mergeMap(isJsonObject(original) ? original : {}, patch, schema);
  return merged === DELETED ? {} : merged;
}

function mergeMap(
  original: JsonObject,
  patch: JsonObject,
  schema: SmpSchema | undefined,
): JsonObject | typeof DELETED {
  const directive = patch.$patch;
  if (directive === 'delete') return DELETED;
  if (directive === 'replace') return stripDirectives(patch, schema);
  if (directive !== undefined && directive !== 'merge') {
    throw invalidPatch(`Unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  }
  const result: JsonObject = { ...original };
  const orders: [string, unknown[]][] = [];
  const primitiveDeletes: [string, unknown[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith(ORDER_PREFIX)) {
      if (Array.isArray(value)) orders.push([key.slice(ORDER_PREFIX.length), value]);
      continue;
    }
    if (key.startsWith(DELETE_PRIMITIVE_PREFIX)) {
      if (Array.isArray(value)) primitiveDeletes.push([key.slice(DELETE_PRIMITIVE_PREFIX.length), value]);
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const field = schema ? (ownValue(schema, key) as SmpField | undefined) : undefined;
    const current = ownValue(result, key);
    if (isJsonObject(value)) {
      const merged = mergeMap(isJsonObject(current) ? current : {}, value, field?.children);
      if (merged === DELETED) delete result[key];
      else setOwn(result, key, merged);
    } else if (Array.isArray(value)) {
      setOwn(result, key, mergeList(Array.isArray(current) ? current : [], value, field));
    } else {
      setOwn(result, key, value);
    }
  }
  for (const [key, values] of primitiveDeletes) {
    const list = ownValue(result, key);
    if (Array.isArray(list))
      setOwn(
        result,
        key,
        list.filter((v) => !values.some((d) => jsonEqual(d, v))),
      );
  }
  for (const [key, order] of orders) {
    const list = ownValue(result, key);
    const mergeKey = schema ? (ownValue(schema, key) as SmpField | undefined)?.mergeKey : undefined;
    if (Array.isArray(list)) setOwn(result, key, reorder(list, order, mergeKey));
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(original: unknown[], patch: unknown[], field: SmpField | undefined): unknown[] {
  const replace = patch.some((el) => isJsonObject(el) && el.$patch === 'replace');
  if (replace) {
    return patch
      .filter((el) => !(isJsonObject(el) && el.$patch === 'replace'))
      .map((el) => (isJsonObject(el) ? stripDirectives(el, field?.children) : el));
  }
  if (field?.mergeKey) return mergeByKey(original, patch, field.mergeKey, field.children);
  if (field?.primitiveMerge) {
    const out = [...original];
    for (const v of patch) if (!out.some((o) => jsonEqual(o, v))) out.push(v);
    return out;
  }
  return patch.map((el) => (isJsonObject(el) ? stripDirectives(el, field?.children) : el));
}

function mergeByKey(
  original: unknown[],
  patch: unknown[],
  key: string,
  children: SmpSchema | undefined,
): unknown[] {
  const out = [...original];
  for (const el of patch) {
    if (!isJsonObject(el))
      throw invalidPatch(`invalid strategic merge patch: expected a map in list merged by ${key}`);
    if (!Object.hasOwn(el, key)) {
      throw invalidPatch(`map: ${JSON.stringify(el)} does not contain declared merge key: ${key}`);
    }
    const at = out.findIndex((o) => isJsonObject(o) && jsonEqual(o[key], el[key]));
    if (el.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) {
      const merged = mergeMap(out[at] as JsonObject, el, children);
      if (merged === DELETED) out.splice(at, 1);
      else out[at] = merged;
    } else {
      const added = mergeMap({}, el, children);
      if (added !== DELETED) out.push(added);
    }
  }
  return out;
}

/** `$setElementOrder`: listed elements take the listed order; the others keep their relative place after them. */
function reorder(list: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const id = (v: unknown): unknown => (mergeKey && isJsonObject(v) ? v[mergeKey] : v);
  const rank = (v: unknown): number => {
    const i = order.findIndex((o) => jsonEqual(id(o), id(v)));
    return i < 0 ? order.length : i;
  };
  return list
    .map((v, i) => ({ v, i, r: rank(v) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.v);
}

/** New content (replaced maps, appended elements) carries no directives into storage. */
function stripDirectives(value: JsonObject, schema: SmpSchema | undefined): JsonObject {
  const merged = mergeMap({}, { ...value, $patch: undefined }, schema);
  return merged === DELETED ? {} : merged;
}
