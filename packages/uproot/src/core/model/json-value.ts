/** Plain-JSON helpers shared by the distro planners (no I/O). */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of plain JSON values (key order ignored, array order kept, 1 !== '1'). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy of a plain JSON value (what a transformation works on, so the input is never mutated). */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Reads a nested value; undefined when any step is missing or not a container. */
export function getPath(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (Array.isArray(current) && typeof key === 'number') current = current[key];
    else if (isRecord(current) && typeof key === 'string') current = current[key];
    else return undefined;
  }
  return current;
}

/** Returns the record at `path`, creating empty records on the way (the caller owns `root`). */
export function ensureRecord(root: JsonRecord, path: readonly string[]): JsonRecord {
  let current = root;
  for (const key of path) {
    const next = current[key];
    if (isRecord(next)) {
      current = next;
    } else {
      const created: JsonRecord = {};
      current[key] = created;
      current = created;
    }
  }
  return current;
}

/** Renders a field path such as spec.rkeConfig.machineSelectorConfig[2].config for messages. */
export function fieldPath(path: readonly (string | number)[]): string {
  return path
    .map((key, i) =>
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_][\w-]*$/.test(key)
          ? `${i === 0 ? '' : '.'}${key}`
          : `[${JSON.stringify(key)}]`,
    )
    .join('');
}
