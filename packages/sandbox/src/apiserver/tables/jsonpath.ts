import { isJsonObject } from '../kube-object.js';

/**
 * The JSONPath subset CRD `additionalPrinterColumns` use: `.a.b`, `.a['b.c']`, `.a[0]`, `.a[-1]`, `.a[*].b`
 * and filters `[?(@.type=="Ready")]` (also `!=`), with or without surrounding braces. Returns every match.
 */
export function evaluateJsonPath(path: string, root: unknown): unknown[] {
  let expr = path.trim();
  if (expr.startsWith('{') && expr.endsWith('}')) expr = expr.slice(1, -1).trim();
  if (expr.startsWith('$')) expr = expr.slice(1);
  let current: unknown[] = [root];
  let i = 0;
  while (i < expr.length && current.length > 0) {
    const ch = expr[i];
    if (ch === '.') {
      const m = /^\.([A-Za-z0-9_\-$]+)/.exec(expr.slice(i));
      if (!m) {
        if (expr[i + 1] === '[') {
          i++;
          continue;
        }
        throw new SyntaxError(`unexpected "${expr.slice(i)}" in JSONPath ${path}`);
      }
      current = current.flatMap((v) => (isJsonObject(v) && m[1]! in v ? [v[m[1]!]] : []));
      i += m[0].length;
    } else if (ch === '[') {
      const end = findClose(expr, i);
      const inner = expr.slice(i + 1, end).trim();
      current = current.flatMap((v) => applyBracket(inner, v, path));
      i = end + 1;
    } else {
      throw new SyntaxError(`unexpected "${expr.slice(i)}" in JSONPath ${path}`);
    }
  }
  return current;
}

function findClose(expr: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < expr.length; i++) {
    const c = expr[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new SyntaxError(`unclosed [ in JSONPath ${expr}`);
}

function unquote(s: string): string | undefined {
  const m = /^(['"])(.*)\1$/.exec(s);
  return m ? m[2] : undefined;
}

function applyBracket(inner: string, value: unknown, path: string): unknown[] {
  if (inner === '*') return Array.isArray(value) ? value : isJsonObject(value) ? Object.values(value) : [];
  const key = unquote(inner);
  if (key !== undefined) return isJsonObject(value) && key in value ? [value[key]] : [];
  if (/^-?\d+$/.test(inner)) {
    if (!Array.isArray(value)) return [];
    const n = Number(inner);
    const item: unknown = value[n < 0 ? value.length + n : n];
    return item === undefined ? [] : [item];
  }
  const filter = /^\?\(\s*@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(.+?)\s*\)$/.exec(inner);
  if (filter) {
    if (!Array.isArray(value)) return [];
    const field = filter[1]!;
    const op = filter[2]!;
    const raw = filter[3]!;
    const want = unquote(raw) ?? raw;
    return value.filter((item) => {
      const got = evaluateJsonPath(field, item)[0];
      const equal = got !== undefined && String(got) === want;
      return op === '==' ? equal : !equal;
    });
  }
  throw new SyntaxError(`unsupported JSONPath expression [${inner}] in ${path}`);
}
