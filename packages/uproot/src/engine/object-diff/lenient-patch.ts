/**
 * Re-applies a plan's recorded JSON Patch to a freshly read object so that applying it twice is the same as
 * applying it once. Used only when no distribution transformation is available for a step (the planner's pure
 * `applyStep` is preferred). Rules: add/replace set the value (an append `/-` is skipped when an equal element
 * is already there); remove deletes when present; a `test` before a remove/replace of an array element finds
 * that element by value (it may have moved), and when it is gone the change is taken as already made.
 */
import type { JsonPatchOp } from '../../core/model/plan-types.js';
import { ExitCode, UprootError } from '../../errors/index.js';
import {
  cloneJson,
  deepEqual,
  deletePath,
  isRecord,
  lookup,
  parsePointer,
  setPath,
  type JsonRecord,
} from './json.js';

export function applyPatchIdempotently<T extends JsonRecord>(target: T, ops: readonly JsonPatchOp[]): T {
  const out = cloneJson(target);
  let retarget: (string | number)[] | 'skip' | undefined;
  for (const op of ops) {
    let path: (string | number)[] = resolvePath(out, parsePointer(op.path));
    if (retarget === 'skip') {
      retarget = undefined;
      continue;
    }
    if (retarget) {
      path = retarget;
      retarget = undefined;
    }
    switch (op.op) {
      case 'test':
        retarget = locateTested(out, path, op.value);
        break;
      case 'add':
        add(out, path, op.value);
        break;
      case 'replace':
        setPath(out, path, cloneJson(op.value));
        break;
      case 'remove':
        if (typeof path[path.length - 1] === 'number' && !isTestedPath(ops, op)) {
          throw ambiguous(op);
        }
        deletePath(out, path);
        break;
      case 'move':
      case 'copy': {
        const from = lookup(out, resolvePath(out, parsePointer(op.from ?? '')));
        if (!from.present) break; // already moved
        if (op.op === 'move') deletePath(out, resolvePath(out, parsePointer(op.from ?? '')));
        setPath(out, path, cloneJson(from.value));
        break;
      }
    }
  }
  return out;
}

/** Pointer segments that address array elements become numbers; `-` stays a string. */
function resolvePath(root: unknown, segments: readonly string[]): (string | number)[] {
  const out: (string | number)[] = [];
  let current: unknown = root;
  for (const seg of segments) {
    if (Array.isArray(current) && /^\d+$/.test(seg)) {
      out.push(Number(seg));
      current = current[Number(seg)];
    } else {
      out.push(seg);
      current = isRecord(current) ? current[seg] : undefined;
    }
  }
  return out;
}

function add(out: JsonRecord, path: (string | number)[], value: unknown): void {
  const last = path[path.length - 1];
  const parent = lookup(out, path.slice(0, -1));
  if (parent.present && Array.isArray(parent.value)) {
    if (parent.value.some((x) => deepEqual(x, value))) return;
    if (last === '-') parent.value.push(cloneJson(value));
    else parent.value.splice(Math.min(Number(last), parent.value.length), 0, cloneJson(value));
    return;
  }
  if (last === '-') {
    setPath(out, path.slice(0, -1), [cloneJson(value)]);
    return;
  }
  setPath(out, path, cloneJson(value));
}

/** Where the tested value is now: the same path, another index of the same array, or gone ('skip'). */
function locateTested(
  out: JsonRecord,
  path: (string | number)[],
  value: unknown,
): (string | number)[] | 'skip' | undefined {
  const here = lookup(out, path);
  if (here.present && deepEqual(here.value, value)) return undefined;
  const index = path[path.length - 1];
  const parent = lookup(out, path.slice(0, -1));
  if (typeof index === 'number' && parent.present && Array.isArray(parent.value)) {
    const found = parent.value.findIndex((x) => deepEqual(x, value));
    if (found >= 0) return [...path.slice(0, -1), found];
  }
  return 'skip';
}

function isTestedPath(ops: readonly JsonPatchOp[], op: JsonPatchOp): boolean {
  const i = ops.indexOf(op);
  const prev = i > 0 ? ops[i - 1] : undefined;
  return prev?.op === 'test' && prev.path === op.path;
}

function ambiguous(op: JsonPatchOp): UprootError {
  return new UprootError(
    'UP-ENGINE-PATCH-AMBIGUOUS',
    `the plan removes array element ${op.path} without a test of its value, so it cannot be re-applied safely to a changed object`,
    {
      // A --plan file from an older uproot, not a bug: the person regenerates it.
      source: 'user',
      exitCode: ExitCode.failed,
      hint: 'this plan needs the distribution transformation to be applied; regenerate the plan with this uproot version',
    },
  );
}
