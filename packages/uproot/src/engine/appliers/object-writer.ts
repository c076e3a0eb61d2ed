/**
 * Writes that never clobber: read the object, apply a pure transformation to what was read, PUT it with the
 * read resourceVersion; on 409 Conflict (Rancher or a person changed it meanwhile) read again and re-apply,
 * a bounded number of times. A transformation that leaves the object as it is makes no write at all, which is
 * what makes re-applying a step after a crash safe.
 */
import { UprootError, ExitCode } from '../../errors/index.js';
import { hasApiStatus, type KubeObject, type ObjectKey, type ObjectStore } from '../ports.js';

export type UpdateResult =
  | { readonly type: 'unchanged'; readonly live: KubeObject }
  | {
      readonly type: 'updated';
      readonly before: KubeObject;
      readonly after: KubeObject;
      readonly conflicts: number;
    };

export interface UpdateOptions {
  /** 409s tolerated before giving up (default 8). */
  readonly maxConflicts?: number;
}

export async function updateObject(
  objects: ObjectStore,
  ref: ObjectKey,
  transform: (live: KubeObject) => KubeObject,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  const maxConflicts = options.maxConflicts ?? 8;
  for (let conflicts = 0; ; conflicts++) {
    const live = await objects.get(ref);
    if (!live) throw missingObject(ref);
    const next = transform(structuredClone(live));
    if (sameObject(live, next)) return { type: 'unchanged', live };
    const body: KubeObject = {
      ...next,
      metadata: { ...next.metadata, resourceVersion: live.metadata?.resourceVersion },
    };
    try {
      const after = await objects.replace(body);
      return { type: 'updated', before: live, after, conflicts };
    } catch (error) {
      if (!hasApiStatus(error, 409) || conflicts + 1 >= maxConflicts) {
        if (hasApiStatus(error, 409)) throw tooManyConflicts(ref, conflicts + 1);
        throw error;
      }
    }
  }
}

/** Equal as objects, whatever the key order (a transformation may rebuild maps). */
export function sameObject(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function describeRef(ref: ObjectKey): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

function missingObject(ref: ObjectKey): UprootError {
  return new UprootError(
    'UP-ENGINE-OBJECT-MISSING',
    `${describeRef(ref)} (${ref.apiVersion}) does not exist`,
    {
      source: 'environment',
      exitCode: ExitCode.failed,
      hint: 'it was deleted since the plan was made; check the cluster, then run `uproot plan` again',
    },
  );
}

function tooManyConflicts(ref: ObjectKey, times: number): UprootError {
  return new UprootError(
    'UP-ENGINE-CONFLICT',
    `${describeRef(ref)} changed under uproot ${times} times in a row; stopped without writing`,
    {
      source: 'environment',
      exitCode: ExitCode.failed,
      hint: 'something keeps rewriting it (a controller loop, or Rancher reconciling); wait for it to settle, then run `uproot migrate --resume`',
    },
  );
}

export interface SchedulingChange {
  /** Every node the selector matched, with its state before. */
  readonly nodes: readonly { readonly name: string; readonly unschedulable: boolean }[];
  /** Nodes this call flipped. */
  readonly flipped: readonly string[];
}

interface NodeScheduling {
  readonly name: string;
  readonly unschedulable: boolean;
  readonly resourceVersion: string | undefined;
}

function schedulingOf(n: KubeObject): NodeScheduling {
  return {
    name: n.metadata?.name ?? '',
    unschedulable: (n.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true,
    resourceVersion: n.metadata?.resourceVersion,
  };
}

/** Lists the selected nodes (paged, no per-node GETs). */
export async function nodeScheduling(
  objects: ObjectStore,
  selector: string,
): Promise<{ name: string; unschedulable: boolean }[]> {
  const nodes = await objects.list('v1', 'Node', { labelSelector: selector || undefined });
  return nodes.map(schedulingOf).map(({ name, unschedulable }) => ({ name, unschedulable }));
}

/**
 * Cordons (true) or uncordons (false) nodes the way kubectl does: a strategic merge patch
 * {"spec":{"unschedulable":true}} per node that is not already so ({"unschedulable":null} to uncordon).
 * `only` limits the change to those node names (uproot touches only the nodes it flipped itself). Each patch
 * carries the resourceVersion uproot read, so a node someone else changed meanwhile (Rancher's drain
 * cordoning it, a person uncordoning it) answers 409 and is read again: `flipped` names exactly the nodes
 * this call changed, which is what the journal records and a rollback undoes.
 */
export async function setSchedulable(
  objects: ObjectStore,
  selector: string,
  unschedulable: boolean,
  only?: readonly string[],
): Promise<SchedulingChange> {
  const listed = (await objects.list('v1', 'Node', { labelSelector: selector || undefined })).map(
    schedulingOf,
  );
  const flipped: string[] = [];
  for (const node of listed) {
    if (only && !only.includes(node.name)) continue;
    if (await flipNode(objects, node, unschedulable)) flipped.push(node.name);
  }
  return { nodes: listed.map(({ name, unschedulable: u }) => ({ name, unschedulable: u })), flipped };
}

/** One node to `unschedulable`, guarded by its resourceVersion; false when it needed nothing (or is gone). */
async function flipNode(
  objects: ObjectStore,
  first: NodeScheduling,
  unschedulable: boolean,
): Promise<boolean> {
  const ref: ObjectKey = { apiVersion: 'v1', kind: 'Node', name: first.name };
  let node: NodeScheduling | undefined = first;
  for (let conflicts = 0; ; conflicts++) {
    if (!node || node.unschedulable === unschedulable) return false;
    try {
      await objects.patch(ref, 'strategic', {
        metadata: { resourceVersion: node.resourceVersion },
        spec: { unschedulable: unschedulable ? true : null },
      });
      return true;
    } catch (error) {
      if (hasApiStatus(error, 404)) return false; // a node deleted meanwhile needs nothing
      if (!hasApiStatus(error, 409)) throw error;
      if (conflicts + 1 >= 8) throw tooManyConflicts(ref, conflicts + 1);
    }
    const live = await objects.get(ref);
    node = live ? schedulingOf(live) : undefined;
  }
}
