/**
 * Field-level differences between two JSON values, and their inverse applied to a live value that may have
 * changed since: what lets rollback undo exactly the fields a step set while keeping everybody else's edits.
 */
import type { FieldChange } from '../journal/journal-schema.js';
import {
  cloneJson,
  deepEqual,
  deletePath,
  formatPath,
  isRecord,
  lookup,
  setPath,
  type FieldPath,
  type JsonRecord,
} from './json.js';

export interface DiffOptions {
  /**
   * `atomic`: an array that differs is one change (rollback then merges it as a set, see invertFields).
   * `by-index`: arrays of equal length are compared element by element (fine-grained YAML edits).
   */
  readonly arrays: 'atomic' | 'by-index';
  /** Top-level keys to leave out (metadata and status of Kubernetes objects). */
  readonly ignoreTopLevel?: readonly string[];
}

export function diffFields(before: unknown, after: unknown, options: DiffOptions): FieldChange[] {
  const out: FieldChange[] = [];
  walk(before, after, [], options, out, true);
  return out;
}

function walk(
  a: unknown,
  b: unknown,
  path: (string | number)[],
  options: DiffOptions,
  out: FieldChange[],
  top: boolean,
): void {
  if (deepEqual(a, b)) return;
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      if (top && options.ignoreTopLevel?.includes(key)) continue;
      const inA = Object.hasOwn(a, key) && a[key] !== undefined;
      const inB = Object.hasOwn(b, key) && b[key] !== undefined;
      if (inA && inB) walk(a[key], b[key], [...path, key], options, out, false);
      else if (inA) out.push({ path: [...path, key], before: { value: cloneJson(a[key]) } });
      else if (inB) out.push({ path: [...path, key], after: { value: cloneJson(b[key]) } });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && options.arrays === 'by-index' && a.length === b.length) {
    a.forEach((item, i) => walk(item, b[i], [...path, i], options, out, false));
    return;
  }
  out.push({ path, before: { value: cloneJson(a) }, after: { value: cloneJson(b) } });
}

/** Applies changes forward (sets each field to its `after`), on a copy. */
export function applyFields<T extends JsonRecord>(target: T, fields: readonly FieldChange[]): T {
  const out = cloneJson(target);
  for (const f of fields) {
    if (f.after) setPath(out, f.path, cloneJson(f.after.value));
    else deletePath(out, f.path);
  }
  return out;
}

export interface InverseResult<T> {
  readonly value: T;
  /** Fields someone else changed since, to a value the inverse cannot reconcile (left as they are). */
  readonly conflicts: readonly string[];
}

/**
 * Undoes `fields` on `live` (a copy is returned). Per field: still as the step left it → restored; already as
 * before → nothing to do; an array edited since → the step's own additions are removed and its removals put
 * back, keeping other elements (set semantics by deep equality); anything else → a conflict, left alone
 * (or, with `force`, restored to its value before the step).
 */
export function invertFields<T extends JsonRecord>(
  live: T,
  fields: readonly FieldChange[],
  options: { readonly force?: boolean } = {},
): InverseResult<T> {
  const out = cloneJson(live);
  const conflicts: string[] = [];
  for (const f of [...fields].reverse()) {
    const current = lookup(out, f.path);
    if (sameAs(current, f.after)) {
      restore(out, f.path, f.before);
      continue;
    }
    if (sameAs(current, f.before)) continue;
    const merged = mergeArrayInverse(current, f);
    if (merged) {
      if (merged.length === 0 && !f.before) deletePath(out, f.path);
      else setPath(out, f.path, merged);
      continue;
    }
    conflicts.push(
      `${formatPath(f.path)} is ${describe(current)} now; the step set it to ${describe(asLookup(f.after))}`,
    );
    // --force: the value from before the step wins over the later edit.
    if (options.force) restore(out, f.path, f.before);
  }
  return { value: out, conflicts };
}

function sameAs(current: ReturnType<typeof lookup>, side: { value: unknown } | undefined): boolean {
  if (!side) return !current.present;
  return current.present && deepEqual(current.value, side.value);
}

function restore(out: JsonRecord, path: FieldPath, before: { value: unknown } | undefined): void {
  if (before) setPath(out, path, cloneJson(before.value));
  else deletePath(out, path);
}

function mergeArrayInverse(current: ReturnType<typeof lookup>, f: FieldChange): unknown[] | undefined {
  const before = f.before?.value ?? [];
  const after = f.after?.value;
  if (!current.present || !Array.isArray(current.value) || !Array.isArray(before) || !Array.isArray(after)) {
    return undefined;
  }
  const added = after.filter((x) => !before.some((y) => deepEqual(x, y)));
  const removed = before.filter((x) => !after.some((y) => deepEqual(x, y)));
  const kept = current.value.filter((x) => !added.some((y) => deepEqual(x, y)));
  for (const r of removed) if (!kept.some((y) => deepEqual(r, y))) kept.push(cloneJson(r));
  return kept;
}

function asLookup(side: { value: unknown } | undefined): ReturnType<typeof lookup> {
  return side ? { present: true, value: side.value } : { present: false };
}

function describe(l: ReturnType<typeof lookup>): string {
  if (!l.present) return 'absent';
  const text = JSON.stringify(l.value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
