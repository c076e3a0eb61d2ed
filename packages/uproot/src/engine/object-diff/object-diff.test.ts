import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyFields, diffFields, invertFields } from './field-diff.js';
import { applyPatchIdempotently } from './lenient-patch.js';
import type { JsonRecord } from './json.js';

type ClusterShape = JsonRecord & {
  spec: {
    kubernetesVersion: string;
    rkeConfig: { machineGlobalConfig: Record<string, unknown>; machineSelectorConfig: unknown[] };
  };
};

const cluster = (): ClusterShape => ({
  metadata: { name: 'prod', resourceVersion: '10' },
  spec: {
    kubernetesVersion: 'v1.26.15+rke2r1',
    rkeConfig: {
      machineGlobalConfig: { 'cloud-provider-name': 'aws' },
      machineSelectorConfig: [{ config: { 'protect-kernel-defaults': false } }],
    },
  },
});

describe('diffFields / invertFields', () => {
  it('records exactly the fields a step set and undoes them on an unchanged object', () => {
    const before = cluster();
    const after = structuredClone(before);
    after.spec.rkeConfig.machineSelectorConfig.push({
      config: { 'kube-controller-manager-arg': ['enable-leader-migration'] },
    });
    const fields = diffFields(before, after, { arrays: 'atomic', ignoreTopLevel: ['metadata', 'status'] });
    expect(fields.map((f) => f.path)).toEqual([['spec', 'rkeConfig', 'machineSelectorConfig']]);
    const undone = invertFields(after, fields);
    expect(undone.conflicts).toEqual([]);
    expect(undone.value).toEqual(before);
  });

  it('keeps edits made by someone else since the step', () => {
    const before = cluster();
    const after = structuredClone(before);
    after.spec.rkeConfig.machineGlobalConfig['cloud-provider-name'] = 'external';
    after.spec.rkeConfig.machineSelectorConfig.push({
      config: { 'kube-controller-manager-arg': ['enable-leader-migration'] },
    });
    const fields = diffFields(before, after, { arrays: 'atomic' });
    const live = structuredClone(after);
    live.spec.kubernetesVersion = 'v1.27.16+rke2r1'; // a person upgraded meanwhile
    live.spec.rkeConfig.machineSelectorConfig.unshift({ config: { 'kubelet-arg': ['max-pods=200'] } }); // Rancher UI edit
    const undone = invertFields(live, fields);
    expect(undone.conflicts).toEqual([]);
    const spec = undone.value.spec;
    expect(spec.kubernetesVersion).toBe('v1.27.16+rke2r1');
    expect(spec.rkeConfig.machineGlobalConfig['cloud-provider-name']).toBe('aws');
    expect(spec.rkeConfig.machineSelectorConfig).toEqual([
      { config: { 'kubelet-arg': ['max-pods=200'] } },
      { config: { 'protect-kernel-defaults': false } },
    ]);
  });

  it('reports a field changed since to a third value as a conflict and leaves it alone', () => {
    const before = { spec: { x: 'a' } };
    const after = { spec: { x: 'b' } };
    const fields = diffFields(before, after, { arrays: 'atomic' });
    const undone = invertFields({ spec: { x: 'c' } }, fields);
    expect(undone.conflicts).toEqual(['spec.x is "c" now; the step set it to "b"']);
    expect(undone.value).toEqual({ spec: { x: 'c' } });
  });

  it('is idempotent: undoing twice equals undoing once', () => {
    const fields = diffFields({ a: 1 }, { a: 2, b: [1] }, { arrays: 'atomic' });
    const once = invertFields({ a: 2, b: [1] }, fields).value;
    expect(invertFields(once, fields)).toEqual({ value: { a: 1 }, conflicts: [] });
  });

  it('treats a `__proto__` key as data, as JSON.parse does (found by the property below, seed -779115770)', () => {
    const before = { c: {} };
    const after = JSON.parse('{"c":{"__proto__":null}}') as Record<string, unknown>;
    const fields = diffFields(before, after, { arrays: 'atomic' });
    const applied = applyFields(before, fields) as { c: object };
    expect(Object.hasOwn(applied.c, '__proto__')).toBe(true);
    expect(JSON.stringify(applied)).toBe('{"c":{"__proto__":null}}');
    expect(Object.getPrototypeOf(applied.c)).toBe(Object.prototype);
    expect(JSON.stringify(invertFields(after, fields).value)).toBe('{"c":{}}');
  });

  const json = fc.jsonValue({ maxDepth: 3 });
  const record = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), json, { maxKeys: 4 });
  it('property: apply(diff) reaches `after`, and invert on `after` gets back `before`', () => {
    fc.assert(
      fc.property(
        record,
        record,
        fc.constantFrom('atomic' as const, 'by-index' as const),
        (before, after, arrays) => {
          const fields = diffFields(before, after, { arrays });
          expect(JSON.parse(JSON.stringify(applyFields(before, fields)))).toEqual(
            JSON.parse(JSON.stringify(after)),
          );
          const undone = invertFields(after, fields);
          expect(undone.conflicts).toEqual([]);
          expect(JSON.parse(JSON.stringify(undone.value))).toEqual(JSON.parse(JSON.stringify(before)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('applyPatchIdempotently', () => {
  it('appends once, even when applied twice', () => {
    const ops = [{ op: 'add' as const, path: '/spec/args/-', value: '--enable-leader-migration' }];
    const once = applyPatchIdempotently({ spec: { args: ['--v=2'] } }, ops);
    expect(applyPatchIdempotently(once, ops)).toEqual({
      spec: { args: ['--v=2', '--enable-leader-migration'] },
    });
  });

  it('finds a tested element that moved, and skips it when it is already gone', () => {
    const ops = [
      { op: 'test' as const, path: '/args/1', value: '--enable-leader-migration' },
      { op: 'remove' as const, path: '/args/1' },
    ];
    expect(applyPatchIdempotently({ args: ['--x', '--y', '--enable-leader-migration'] }, ops)).toEqual({
      args: ['--x', '--y'],
    });
    expect(applyPatchIdempotently({ args: ['--x', '--y'] }, ops)).toEqual({ args: ['--x', '--y'] });
  });

  it('refuses an array removal it cannot check', () => {
    expect(() => applyPatchIdempotently({ args: ['a'] }, [{ op: 'remove', path: '/args/0' }])).toThrow(
      /without a test/,
    );
  });

  it('sets and removes object fields idempotently', () => {
    const ops = [
      { op: 'replace' as const, path: '/spec/cloud~1provider', value: 'external' },
      { op: 'remove' as const, path: '/spec/old' },
    ];
    const once = applyPatchIdempotently({ spec: { 'cloud/provider': 'aws', old: 1 } }, ops);
    expect(once).toEqual({ spec: { 'cloud/provider': 'external' } });
    expect(applyPatchIdempotently(once, ops)).toEqual(once);
  });
});
