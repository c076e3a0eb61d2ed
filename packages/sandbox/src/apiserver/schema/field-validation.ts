import { isJsonObject, ownValue, type JsonObject } from '../kube-object.js';
import { structFields, type FieldType } from './kind-schema.js';

/**
 * Server-side field validation (`fieldValidation=Strict|Warn|Ignore`, apiserver handlers/rest.go
 * fieldValidation: Warn when absent). The strict decoder (sigs.k8s.io/json UnmarshalStrict) reports
 * `unknown field "<path>"` and `duplicate field "<path>"`; the typed decode drops unknown fields whatever
 * the directive, so they are pruned here too.
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * Removes the fields `schema` does not declare from `value` (in place); returns their paths. Fields that
 * `old` (the stored object) already holds at the same place are left alone: the twin's in-process writers
 * are not decoded, and a client must not be blamed for what it did not send.
 */
export function pruneUnknownFields(
  value: unknown,
  schema: FieldType | undefined,
  old?: unknown,
  path = '',
): string[] {
  if (!schema || value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  if (schema.kind === 'list' && Array.isArray(value)) {
    const was = Array.isArray(old) ? old : [];
    value.forEach((item, i) => out.push(...pruneUnknownFields(item, schema.item, was[i], `${path}[${i}]`)));
  } else if (schema.kind === 'map' && isJsonObject(value)) {
    const was = isJsonObject(old) ? old : {};
    for (const [k, v] of Object.entries(value))
      out.push(...pruneUnknownFields(v, schema.value, ownValue(was, k), join(path, k)));
  } else if (schema.kind === 'struct' && isJsonObject(value)) {
    const fields = structFields(schema.name);
    if (!fields) return [];
    const obj = value as JsonObject;
    const was = isJsonObject(old) ? old : {};
    for (const key of Object.keys(obj)) {
      const field = fields.get(key);
      if (field !== undefined)
        out.push(...pruneUnknownFields(obj[key], field, ownValue(was, key), join(path, key)));
      else if (!Object.hasOwn(was, key)) {
        out.push(join(path, key));
        delete obj[key];
      }
    }
  }
  return out;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Paths of keys that repeat within one JSON object of `text` (JSON.parse keeps only the last). */
export function duplicateJsonFields(text: string): string[] {
  const out: string[] = [];
  type Frame =
    { obj: true; keys: Set<string>; path: string; key?: string } | { obj: false; i: number; path: string };
  const stack: Frame[] = [];
  const childPath = (): string => {
    const top = stack.at(-1);
    if (!top) return '';
    return top.obj ? join(top.path, top.key ?? '') : `${top.path}[${top.i}]`;
  };
  let expectKey = false;
  for (let p = 0; p < text.length; p++) {
    const c = text[p]!;
    if (c === '{') {
      stack.push({ obj: true, keys: new Set(), path: childPath() });
      expectKey = true;
    } else if (c === '[') {
      stack.push({ obj: false, i: 0, path: childPath() });
      expectKey = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top && !top.obj) top.i++;
      expectKey = top?.obj === true;
    } else if (c === '"') {
      let end = p + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (expectKey && top?.obj) {
        const key = JSON.parse(text.slice(p, end + 1)) as string;
        if (top.keys.has(key)) out.push(join(top.path, key));
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      p = end;
    }
  }
  return out;
}

/** The strict decoder's error texts, in the order the problems were found. */
export function strictErrors(unknown: readonly string[], duplicates: readonly string[]): string[] {
  return [...unknown.map((f) => `unknown field "${f}"`), ...duplicates.map((f) => `duplicate field "${f}"`)];
}
