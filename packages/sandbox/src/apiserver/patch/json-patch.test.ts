import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from './json-patch.js';
import { mergePatch } from './merge-patch.js';

describe('applyJsonPatch', () => {
  const doc = Object.freeze({ a: 1, list: Object.freeze(['x', 'y']), m: Object.freeze({ 'k/1': 'v' }) });

  it('applies add, remove, replace, move, copy and test without touching the input', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/list/-', value: 'z' },
      { op: 'add', path: '/list/0', value: 'w' },
      { op: 'remove', path: '/list/1' },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'move', from: '/m/k~11', path: '/moved' },
      { op: 'test', path: '/b', value: 2 },
    ]);
    expect(out).toEqual({ a: 2, b: 2, list: ['w', 'y', 'z'], m: {}, moved: 'v' });
    expect(doc.list).toEqual(['x', 'y']);
  });

  it('fails a test or a missing path with 422', () => {
    expect(() => applyJsonPatch(doc, [{ op: 'test', path: '/a', value: 9 }])).toThrow(/test failed/);
    try {
      applyJsonPatch(doc, [{ op: 'replace', path: '/nope/x', value: 1 }]);
      expect.unreachable();
    } catch (e) {
      expect((e as { status: unknown }).status).toMatchObject({ code: 422, reason: 'Invalid' });
    }
  });
});

describe('mergePatch', () => {
  it('follows RFC 7396: null deletes, objects merge, arrays replace', () => {
    expect(
      mergePatch({ a: 1, b: { c: 1, d: 2 }, l: [1, 2] }, { a: null, b: { c: null, e: 3 }, l: [3] }),
    ).toEqual({ b: { d: 2, e: 3 }, l: [3] });
  });
});
