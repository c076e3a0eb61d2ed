import { describe, expect, it } from 'vitest';
import { UprootError } from '../../errors/index.js';
import type { KubeObject, ObjectKey, ObjectStore } from '../ports.js';
import { nodeScheduling, setSchedulable } from './object-writer.js';

class HttpStatusError extends UprootError {
  constructor(readonly status: number) {
    super('UP-KUBE-API', `HTTP ${status}`, { source: 'environment' });
  }
}

/**
 * Nodes behind the ObjectStore port with the API server's optimistic concurrency: a patch whose
 * metadata.resourceVersion is not the current one answers 409. `beforePatch` lets a test change a node between
 * uproot's read and its write, as Rancher's drain or a person would.
 */
function nodeStore(
  nodes: Record<string, boolean>,
  beforePatch: (name: string, store: { set(name: string, unschedulable: boolean): void }) => void = () => {},
) {
  const state = new Map(
    Object.entries(nodes).map(([name, unschedulable]) => [name, { unschedulable, version: 1 }]),
  );
  const patches: string[] = [];
  const set = (name: string, unschedulable: boolean): void => {
    const node = state.get(name);
    if (node) state.set(name, { unschedulable, version: node.version + 1 });
  };
  const asObject = (name: string): KubeObject | undefined => {
    const node = state.get(name);
    return node
      ? {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, resourceVersion: String(node.version) },
          spec: node.unschedulable ? { unschedulable: true } : {},
        }
      : undefined;
  };
  const store: Pick<ObjectStore, 'list' | 'get' | 'patch'> = {
    list: async () => [...state.keys()].map((n) => asObject(n)!),
    get: async (ref: ObjectKey) => asObject(ref.name),
    patch: async (ref: ObjectKey, _type, body) => {
      beforePatch(ref.name, { set });
      const node = state.get(ref.name);
      if (!node) throw new HttpStatusError(404);
      const patch = body as {
        metadata: { resourceVersion: string };
        spec: { unschedulable: boolean | null };
      };
      if (patch.metadata.resourceVersion !== String(node.version)) throw new HttpStatusError(409);
      patches.push(ref.name);
      set(ref.name, patch.spec.unschedulable === true);
      return asObject(ref.name)!;
    },
  };
  return { objects: store as ObjectStore, state, patches, set };
}

describe('setSchedulable (cordon-nodes, uncordon-nodes)', () => {
  it('cordons only the nodes that are schedulable, and says which it flipped', async () => {
    const { objects, patches } = nodeStore({ a: false, b: true, c: false });
    const result = await setSchedulable(objects, 'role=cp', true);
    expect(result.flipped).toEqual(['a', 'c']);
    expect(patches).toEqual(['a', 'c']);
    expect(result.nodes).toEqual([
      { name: 'a', unschedulable: false },
      { name: 'b', unschedulable: true },
      { name: 'c', unschedulable: false },
    ]);
    expect(await nodeScheduling(objects, 'role=cp')).toEqual([
      { name: 'a', unschedulable: true },
      { name: 'b', unschedulable: true },
      { name: 'c', unschedulable: true },
    ]);
  });

  it('uncordons only the nodes it is told are its own', async () => {
    const { objects, state } = nodeStore({ mine: true, theirs: true });
    const result = await setSchedulable(objects, '', false, ['mine']);
    expect(result.flipped).toEqual(['mine']);
    expect(state.get('theirs')?.unschedulable).toBe(true);
  });

  it('reads a node again after a 409 and leaves it when someone else already did the same', async () => {
    let raced = false;
    const { objects, patches } = nodeStore({ a: false }, (name, store) => {
      if (raced) return;
      raced = true;
      store.set(name, true); // Rancher's drain cordoned it between uproot's read and its write
    });
    const result = await setSchedulable(objects, '', true);
    expect(result.flipped).toEqual([]);
    expect(patches).toEqual([]);
  });

  it('writes after a 409 when the node still needs the change', async () => {
    let raced = false;
    const { objects, patches } = nodeStore({ a: false }, (name, store) => {
      if (raced) return;
      raced = true;
      store.set(name, false); // a label change: a new resourceVersion, still schedulable
    });
    expect((await setSchedulable(objects, '', true)).flipped).toEqual(['a']);
    expect(patches).toEqual(['a']);
  });

  it('stops with UP-ENGINE-CONFLICT after eight conflicts in a row, without writing', async () => {
    const { objects, patches } = nodeStore({ a: false }, (name, store) => store.set(name, false));
    await expect(setSchedulable(objects, '', true)).rejects.toMatchObject({ code: 'UP-ENGINE-CONFLICT' });
    expect(patches).toEqual([]);
  });

  it('skips a node deleted between the list and the patch', async () => {
    const { objects, state } = nodeStore({ a: false, b: false }, (name) => {
      if (name === 'a') state.delete('a');
    });
    expect((await setSchedulable(objects, '', true)).flipped).toEqual(['b']);
  });
});
