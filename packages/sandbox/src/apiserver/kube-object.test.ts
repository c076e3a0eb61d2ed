import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deepFreeze, freezeStored, interned, shareUnchanged, thaw } from './kube-object.js';

describe('stored objects share what does not change', () => {
  it('a new version takes the previous version’s equal subtrees and keeps its own changed ones', () => {
    const prev = deepFreeze({
      metadata: { name: 'n1', labels: { a: '1' }, resourceVersion: '5' },
      spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    });
    const next = thaw(prev) as {
      metadata: { resourceVersion: string };
      status: { conditions: { status: string }[] };
    };
    next.metadata.resourceVersion = '6';
    next.status.conditions[0]!.status = 'True';
    expect(shareUnchanged(next, prev)).toBe(false);
    const after = next as unknown as typeof prev;
    expect(after.spec).toBe(prev.spec);
    expect(after.metadata.labels).toBe(prev.metadata.labels);
    expect(after.metadata).not.toBe(prev.metadata);
    expect(after.status.conditions[0]).not.toBe(prev.status.conditions[0]);
    expect(after.status.conditions[0]!.status).toBe('True');
  });

  it('subtrees with the same keys in another order are not shared (the JSON would change)', () => {
    const prev = deepFreeze({ spec: { a: 1, b: 2 } });
    const next = { spec: { b: 2, a: 1 } };
    expect(shareUnchanged(next, prev)).toBe(false);
    expect(next.spec).not.toBe(prev.spec);
    expect(JSON.stringify(next)).toBe('{"spec":{"b":2,"a":1}}');
  });

  it('the JSON of a version is byte for byte the same after sharing (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const prev = deepFreeze(structuredClone(a));
        const next = structuredClone(b);
        const before = JSON.stringify(next);
        const equal = shareUnchanged(next, prev);
        expect(JSON.stringify(next)).toBe(before);
        expect(equal).toBe(before === JSON.stringify(prev));
      }),
    );
  });

  it('freezeStored freezes deeply and keeps every value', () => {
    const obj = { metadata: { uid: `${'ab'.repeat(4)}-${'cd'.repeat(2)}` }, items: ['x', { y: 'z' }] };
    const json = JSON.stringify(obj);
    freezeStored(obj);
    expect(Object.isFrozen(obj.metadata)).toBe(true);
    expect(Object.isFrozen(obj.items[1])).toBe(true);
    expect(JSON.stringify(obj)).toBe(json);
  });

  it('interned gives back equal text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (s) => {
        expect(interned(`${s}`)).toBe(s);
      }),
    );
  });
});
