import { isJsonObject, jsonEqual, ownValue, type JsonObject, type KubeObject } from '../kube-object.js';
import type { SmpField, SmpSchema } from '../patch/patch-schema.js';
import { structFields, type FieldType } from './kind-schema.js';

/**
 * `metadata.managedFields` bookkeeping for HTTP writes, after apimachinery pkg/util/managedfields and
 * structured-merge-diff, simplified: a manager's set holds every field it set (maps and keyed-list items
 * as members with `.`, lists merged by key per the strategic-merge schema, other lists atomic). Update
 * operations take the fields they change from everyone; Apply owns exactly its configuration, removes
 * what it stopped applying when no one else owns it, and conflicts with other managers' fields it would
 * change (409 unless force). Objects the twin writes in process carry no entries.
 */

export interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly time: string;
  readonly fieldsType: 'FieldsV1';
  readonly fieldsV1: JsonObject;
  readonly subresource?: string;
}

/** A field path: `f:<name>`, `k:<key json>`, `v:<value json>`, `.` segments joined by NUL. */
type PathKey = string;
const SEP = '\u0000';

/** apimachinery managedfields/internal/stripmeta.go: never owned. */
const STRIPPED_META = new Set([
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

interface Walk {
  readonly out: Map<PathKey, string>;
  readonly subresourceStatus: boolean;
  readonly hasStatus: boolean;
}

/** Every owned path of `obj` with the JSON of its value ('' for membership-only nodes). */
export function fieldPaths(
  obj: KubeObject,
  schema: FieldType | undefined,
  smp: SmpSchema | undefined,
  options: { subresource?: string; hasStatus: boolean },
): Map<PathKey, string> {
  const walk: Walk = {
    out: new Map(),
    subresourceStatus: options.subresource === 'status',
    hasStatus: options.hasStatus,
  };
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'apiVersion' || key === 'kind' || value === undefined) continue;
    if (walk.hasStatus && (key === 'status') !== walk.subresourceStatus) continue;
    const type = schema?.kind === 'struct' ? structFields(schema.name)?.get(key) : undefined;
    visit(
      walk,
      [`f:${key}`],
      value,
      type,
      smp ? (ownValue(smp, key) as SmpField | undefined)?.children : undefined,
      key === 'metadata',
    );
  }
  return walk.out;
}

function visit(
  walk: Walk,
  path: string[],
  value: unknown,
  type: FieldType | undefined,
  smp: SmpSchema | undefined,
  isMeta = false,
): void {
  if (isJsonObject(value) && Object.keys(value).length > 0) {
    const isStruct = type?.kind === 'struct';
    if (!isStruct) walk.out.set([...path, '.'].join(SEP), '');
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined || (isMeta && STRIPPED_META.has(key))) continue;
      const childType =
        type?.kind === 'struct'
          ? structFields(type.name)?.get(key)
          : type?.kind === 'map'
            ? type.value
            : undefined;
      const childSmp = smp ? (ownValue(smp, key) as SmpField | undefined) : undefined;
      if (Array.isArray(child)) visitList(walk, [...path, `f:${key}`], child, childType, childSmp);
      else visit(walk, [...path, `f:${key}`], child, childType, childSmp?.children);
    }
    return;
  }
  walk.out.set(path.join(SEP), JSON.stringify(value));
}

function visitList(
  walk: Walk,
  path: string[],
  items: unknown[],
  type: FieldType | undefined,
  smp: { mergeKey?: string; primitiveMerge?: boolean; children?: SmpSchema } | undefined,
): void {
  const itemType = type?.kind === 'list' ? type.item : undefined;
  if (smp?.mergeKey && items.every((i) => isJsonObject(i) && i[smp.mergeKey!] !== undefined)) {
    for (const item of items as JsonObject[]) {
      const seg = `k:${JSON.stringify({ [smp.mergeKey]: item[smp.mergeKey] })}`;
      walk.out.set([...path, seg, '.'].join(SEP), '');
      visit(walk, [...path, seg], item, itemType, smp.children);
    }
    return;
  }
  if (smp?.primitiveMerge) {
    for (const item of items) walk.out.set([...path, `v:${JSON.stringify(item)}`].join(SEP), '');
    return;
  }
  walk.out.set(path.join(SEP), JSON.stringify(items));
}

/** The FieldsV1 document of a set of paths. */
export function toFieldsV1(paths: Iterable<PathKey>): JsonObject {
  const root: JsonObject = {};
  for (const key of paths) {
    let node = root;
    for (const seg of key.split(SEP)) {
      if (!isJsonObject(node[seg])) node[seg] = {};
      node = node[seg] as JsonObject;
    }
  }
  return root;
}

/** The paths of a FieldsV1 document (its leaves). */
export function fromFieldsV1(fields: unknown, prefix: string[] = []): Set<PathKey> {
  const out = new Set<PathKey>();
  if (!isJsonObject(fields)) return out;
  for (const [seg, child] of Object.entries(fields)) {
    const path = [...prefix, seg];
    if (isJsonObject(child) && Object.keys(child).length > 0) {
      for (const p of fromFieldsV1(child, path)) out.add(p);
    } else {
      out.add(path.join(SEP));
    }
  }
  return out;
}

/** A path as structured-merge-diff prints it: `.data.key`, `.spec.ports[port=80].name`. */
export function printPath(key: PathKey): string {
  return key
    .split(SEP)
    .filter((s) => s !== '.')
    .map((seg) => {
      if (seg.startsWith('f:')) return `.${seg.slice(2)}`;
      if (seg.startsWith('v:')) return `[=${seg.slice(2)}]`;
      const fields = JSON.parse(seg.slice(2)) as JsonObject;
      return `[${Object.entries(fields)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

export interface OwnershipChange {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly subresource?: string;
  readonly apiVersion: string;
  readonly time: string;
  /** Update: paths of the stored and the new object. */
  readonly before: Map<PathKey, string>;
  readonly after: Map<PathKey, string>;
  /** Apply: the paths of the applied configuration. */
  readonly applied?: Map<PathKey, string>;
  readonly force?: boolean;
}

export interface Conflict {
  readonly manager: ManagedFieldsEntry;
  readonly path: PathKey;
}

const sameEntry = (e: ManagedFieldsEntry, c: OwnershipChange): boolean =>
  e.manager === c.manager && e.operation === c.operation && (e.subresource ?? '') === (c.subresource ?? '');

/**
 * The entries after a write. For Apply, `conflicts` lists other managers' paths whose values the
 * configuration changes (the caller refuses unless forced) and `release` the paths to remove from the object.
 */
export function updateManagedFields(
  entries: readonly ManagedFieldsEntry[],
  c: OwnershipChange,
): { entries: ManagedFieldsEntry[]; conflicts: Conflict[]; release: PathKey[] } {
  const sets = entries.map((e) => ({ entry: e, paths: fromFieldsV1(e.fieldsV1) }));
  const conflicts: Conflict[] = [];
  const release: PathKey[] = [];
  let mine = sets.find((s) => sameEntry(s.entry, c))?.paths ?? new Set<PathKey>();
  if (c.operation === 'Update') {
    const changed = [...c.after.keys()].filter((p) => !c.before.has(p) || c.before.get(p) !== c.after.get(p));
    const gone = new Set([...c.before.keys()].filter((p) => !c.after.has(p)));
    for (const s of sets) {
      if (sameEntry(s.entry, c)) continue;
      for (const p of changed) s.paths.delete(p);
      for (const p of gone) s.paths.delete(p);
    }
    mine = new Set([...mine, ...changed].filter((p) => !gone.has(p)));
  } else {
    const applied = c.applied ?? new Map<PathKey, string>();
    for (const s of sets) {
      if (sameEntry(s.entry, c)) continue;
      for (const p of applied.keys()) {
        if (!s.paths.has(p)) continue;
        const live = c.before.get(p);
        if (live !== undefined && live !== applied.get(p) && !c.force)
          conflicts.push({ manager: s.entry, path: p });
        if (c.force) s.paths.delete(p);
      }
    }
    const others = new Set(sets.filter((s) => !sameEntry(s.entry, c)).flatMap((s) => [...s.paths]));
    for (const p of mine) if (!applied.has(p) && !others.has(p) && !p.endsWith(`${SEP}.`)) release.push(p);
    mine = new Set(applied.keys());
  }
  const out: ManagedFieldsEntry[] = [];
  for (const s of sets) {
    if (sameEntry(s.entry, c)) continue;
    if (s.paths.size > 0) out.push({ ...s.entry, fieldsV1: toFieldsV1(s.paths) });
  }
  if (mine.size > 0) {
    out.push({
      manager: c.manager,
      operation: c.operation,
      apiVersion: c.apiVersion,
      time: c.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(mine),
      ...(c.subresource ? { subresource: c.subresource } : {}),
    });
  }
  return { entries: out, conflicts, release };
}

/** Removes the value at a path from an object (Apply releasing a field no one owns any more). */
export function removePath(obj: JsonObject, key: PathKey): void {
  const segs = key.split(SEP);
  let node: unknown = obj;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    if (seg.startsWith('f:') && isJsonObject(node)) {
      if (last) delete (node as JsonObject)[seg.slice(2)];
      else node = ownValue(node, seg.slice(2));
    } else if (Array.isArray(node)) {
      const list = node as unknown[];
      const match = seg.startsWith('k:')
        ? (item: unknown) =>
            isJsonObject(item) &&
            Object.entries(JSON.parse(seg.slice(2)) as JsonObject).every(([k, v]) =>
              jsonEqual(ownValue(item, k), v),
            )
        : (item: unknown) => jsonEqual(item, JSON.parse(seg.slice(2)));
      const at = list.findIndex(match);
      if (at < 0) return;
      if (last || seg.startsWith('v:')) {
        list.splice(at, 1);
        return;
      }
      node = list[at];
    } else {
      return;
    }
  }
}

/** The Status message and causes of an Apply conflict (managedfields/internal/conflict.go). */
export function conflictMessage(conflicts: readonly Conflict[]): {
  message: string;
  causes: { field: string; message: string }[];
} {
  const who = (e: ManagedFieldsEntry): string => {
    let s = JSON.stringify(e.manager);
    if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
    return e.operation === 'Update' ? `${s} using ${e.apiVersion} at ${e.time}` : s;
  };
  const causes = conflicts.map((c) => ({
    field: printPath(c.path),
    message: `conflict with ${who(c.manager)}`,
  }));
  if (conflicts.length === 1) {
    return {
      message: `Apply failed with 1 conflict: conflict with ${who(conflicts[0]!.manager)}: ${printPath(conflicts[0]!.path)}`,
      causes,
    };
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const key = who(c.manager);
    byManager.set(key, [...(byManager.get(key) ?? []), printPath(c.path)]);
  }
  const lines = [...byManager.keys()]
    .sort()
    .flatMap((m) => [`conflicts with ${m}:`, ...byManager.get(m)!.map((p) => `- ${p}`)]);
  return { message: `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`, causes };
}
