/**
 * Aligns an old list with a new one so an edit keeps the items that did not change: a longest common
 * subsequence of equal items, and in each gap between them, old and new items paired by position (edited in
 * place, so the comments inside them survive), the rest deleted or inserted.
 */
import { deepEqual } from '../../model/json-value.js';

export type AlignmentOp =
  | { readonly type: 'keep'; readonly old: number; readonly new: number }
  | { readonly type: 'modify'; readonly old: number; readonly new: number }
  | { readonly type: 'delete'; readonly old: number }
  /** Insert new item `new` after old item `afterOld` (-1: before the first). */
  | { readonly type: 'insert'; readonly new: number; readonly afterOld: number };

/** Above this many cells the quadratic table is skipped and items are paired by position. */
const MAX_TABLE_CELLS = 250_000;

export function alignSequences(oldItems: readonly unknown[], newItems: readonly unknown[]): AlignmentOp[] {
  const matches = oldItems.length * newItems.length > MAX_TABLE_CELLS ? [] : lcs(oldItems, newItems);
  const ops: AlignmentOp[] = [];
  let i = 0;
  let j = 0;
  const gap = (oldEnd: number, newEnd: number): void => {
    for (const op of alignGap(oldItems, newItems, i, oldEnd, j, newEnd)) {
      if (op === 'modify') ops.push({ type: 'modify', old: i++, new: j++ });
      else if (op === 'delete') ops.push({ type: 'delete', old: i++ });
      else ops.push({ type: 'insert', new: j++, afterOld: i - 1 });
    }
  };
  for (const [oi, nj] of matches) {
    gap(oi, nj);
    ops.push({ type: 'keep', old: i++, new: j++ });
  }
  gap(oldItems.length, newItems.length);
  return ops;
}

function lcs(a: readonly unknown[], b: readonly unknown[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    const row = table[i]!;
    const below = table[i + 1]!;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = deepEqual(a[i], b[j]) ? below[j + 1]! + 1 : Math.max(below[j]!, row[j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (deepEqual(a[i], b[j])) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return pairs;
}

/**
 * Within a gap between equal items, an edit-distance alignment: editing an item in place costs 2·(1 −
 * similarity), deleting or inserting one costs 1. So an entry whose selector is unchanged is edited in place,
 * while an unrelated neighbour is deleted rather than rewritten into something else.
 */
function alignGap(
  a: readonly unknown[],
  b: readonly unknown[],
  i0: number,
  i1: number,
  j0: number,
  j1: number,
): ('modify' | 'delete' | 'insert')[] {
  const n = i1 - i0;
  const m = j1 - j0;
  if (n === 0 || m === 0 || n * m > MAX_TABLE_CELLS) {
    const ops: ('modify' | 'delete' | 'insert')[] = [];
    for (let k = 0; k < Math.min(n, m); k++) ops.push('modify');
    for (let k = m; k < n; k++) ops.push('delete');
    for (let k = n; k < m; k++) ops.push('insert');
    return ops;
  }
  const cost: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let x = n; x >= 0; x--) {
    for (let y = m; y >= 0; y--) {
      if (x === n && y === m) continue;
      const options: number[] = [];
      if (x < n && y < m) options.push(2 * (1 - similarity(a[i0 + x], b[j0 + y])) + cost[x + 1]![y + 1]!);
      if (x < n) options.push(1 + cost[x + 1]![y]!);
      if (y < m) options.push(1 + cost[x]![y + 1]!);
      cost[x]![y] = Math.min(...options);
    }
  }
  const ops: ('modify' | 'delete' | 'insert')[] = [];
  let x = 0;
  let y = 0;
  const near = (p: number, q: number): boolean => Math.abs(p - q) < 1e-9;
  while (x < n || y < m) {
    const here = cost[x]![y]!;
    if (x < n && y < m && near(here, 2 * (1 - similarity(a[i0 + x], b[j0 + y])) + cost[x + 1]![y + 1]!)) {
      ops.push('modify');
      x++;
      y++;
    } else if (x < n && near(here, 1 + cost[x + 1]![y]!)) {
      ops.push('delete');
      x++;
    } else {
      ops.push('insert');
      y++;
    }
  }
  return ops;
}

/** 1 for equal values, 0 for unrelated ones; records score by shared keys, flags by their name. */
export function similarity(a: unknown, b: unknown): number {
  if (deepEqual(a, b)) return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    const name = (s: string): string => s.split('=')[0] ?? s;
    return a.includes('=') && b.includes('=') && name(a) === name(b) ? 0.5 : 0;
  }
  if (isPlainRecord(a) && isPlainRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    let sum = 0;
    for (const k of keys) if (Object.hasOwn(a, k) && Object.hasOwn(b, k)) sum += similarity(a[k], b[k]);
    return keys.size === 0 ? 1 : sum / keys.size;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const longest = Math.max(a.length, b.length);
    return longest === 0 ? 1 : lcs(a, b).length / longest;
  }
  return 0;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
