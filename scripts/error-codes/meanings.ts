import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';

const sourceSchema = z.enum(['user', 'environment', 'uproot']);

/**
 * What a person wrote about a code (or, for a key ending in `*`, every raised code starting with the
 * rest that has no entry of its own). `exit` and `source` only for codes that are recorded rather than
 * raised as errors: for errors they come from the code.
 */
const entrySchema = z.union([
  z.string().min(1),
  z.strictObject({
    meaning: z.string().min(1).optional(),
    exit: z.number().int().optional(),
    source: sourceSchema.optional(),
  }),
]);

export interface Meaning {
  readonly meaning?: string;
  readonly exit?: number;
  readonly source?: z.infer<typeof sourceSchema>;
}

export interface Meanings {
  readonly file: string;
  /** Exact codes. */
  readonly codes: ReadonlyMap<string, Meaning>;
  /** Prefixes (the key without its `*`), longest first. */
  readonly families: readonly { readonly prefix: string; readonly key: string; readonly entry: Meaning }[];
}

const KEY = /^UP-[A-Z0-9]+(?:-[A-Z0-9]+)*(?:-\*)?$/;

/** Reads the meanings file; a malformed one fails naming the file, line and key. */
export function loadMeanings(file: string): Meanings {
  const lineCounter = new LineCounter();
  const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new Error(`${file}:${e.linePos?.[0].line ?? '?'}: ${e.message}`);
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`${file}: expected a map from error code to its meaning`);
  }
  const codes = new Map<string, Meaning>();
  const families: { prefix: string; key: string; entry: Meaning }[] = [];
  const keyLines = new Map<string, number>();
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      if (isScalar(pair.key) && pair.key.range) {
        keyLines.set(String(pair.key.value), lineCounter.linePos(pair.key.range[0]).line);
      }
    }
  }
  for (const [key, value] of Object.entries(raw)) {
    const line = keyLines.get(key) ?? '?';
    if (!KEY.test(key)) {
      throw new Error(
        `${file}:${line}: key "${key}" is not an error code (UP-WORDS) or a family (UP-WORDS-*)`,
      );
    }
    const parsed = entrySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `${file}:${line}: ${key}: ${issue?.message ?? 'invalid'}; give the meaning as text, or {meaning, exit, source}`,
      );
    }
    const entry: Meaning = typeof parsed.data === 'string' ? { meaning: parsed.data } : parsed.data;
    const clean = entry.meaning ? { ...entry, meaning: entry.meaning.trim().replace(/\s+/g, ' ') } : entry;
    if (key.endsWith('*')) families.push({ prefix: key.slice(0, -1), key, entry: clean });
    else codes.set(key, clean);
  }
  families.sort((a, b) => b.prefix.length - a.prefix.length);
  return { file, codes, families };
}
