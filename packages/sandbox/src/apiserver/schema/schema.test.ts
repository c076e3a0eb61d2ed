import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../registry/builtin-kinds.js';
import { duplicateJsonFields, pruneUnknownFields } from './field-validation.js';
import { kindSchema } from './kind-schema.js';
import { fieldPaths, printPath, removePath, toFieldsV1, updateManagedFields } from './managed-fields.js';

const kind = (k: string) => builtinKinds().find((t) => t.kind === k)!;

describe('field validation against the generated schemas', () => {
  it('prunes and reports fields no model declares, at their JSON paths', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { any: 'label' }, colour: 'red' },
      spec: { containers: [{ name: 'c', image: 'i', imagee: 'typo' }] },
      extra: 1,
    };
    expect(pruneUnknownFields(pod, kindSchema(kind('Pod')))).toEqual([
      'metadata.colour',
      'spec.containers[0].imagee',
      'extra',
    ]);
    expect(pod).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { any: 'label' } },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
  });

  it('leaves alone unknown fields the stored object already had', () => {
    const next = { metadata: { name: 'n' }, legacy: true };
    expect(pruneUnknownFields(next, kindSchema(kind('Node')), { legacy: true })).toEqual([]);
    expect(next.legacy).toBe(true);
  });

  it('finds keys repeated within one JSON object', () => {
    expect(duplicateJsonFields('{"a":1,"b":{"c":1,"c":2},"a":3,"l":[{"x":1,"x":2}]}')).toEqual([
      'b.c',
      'a',
      'l[0].x',
    ]);
    expect(duplicateJsonFields('{"s":"a\\"b","t":"a\\"b"}')).toEqual([]);
  });
});

describe('managedFields', () => {
  const svc = kind('Service');
  const paths = (obj: Record<string, unknown>) =>
    fieldPaths(obj, kindSchema(svc), svc.patchSchema, { hasStatus: true });

  it('writes FieldsV1 with members for maps and keyed list items, skipping status and system metadata', () => {
    const fields = toFieldsV1(
      paths({
        metadata: { name: 's', uid: 'u', labels: { app: 'web' } },
        spec: { ports: [{ port: 80, name: 'http' }], type: 'ClusterIP' },
        status: { loadBalancer: {} },
      }).keys(),
    );
    expect(fields).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:ports': { 'k:{"port":80}': { '.': {}, 'f:port': {}, 'f:name': {} } }, 'f:type': {} },
    });
    expect(printPath(`f:spec\u0000f:ports\u0000k:{"port":80}\u0000f:name`)).toBe('.spec.ports[port=80].name');
  });

  it('gives an update the fields it changed and an apply its configuration, with conflicts unless forced', () => {
    const base = { metadata: { labels: { app: 'web' } }, spec: { type: 'ClusterIP' } };
    const created = updateManagedFields([], {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: 't0',
      before: new Map(),
      after: paths(base),
      applied: paths(base),
    });
    const changed = { metadata: { labels: { app: 'api' } }, spec: { type: 'ClusterIP' } };
    const updated = updateManagedFields(created.entries, {
      manager: 'editor',
      operation: 'Update',
      apiVersion: 'v1',
      time: 't1',
      before: paths(base),
      after: paths(changed),
    });
    expect(updated.entries.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['kubectl', { 'f:metadata': { 'f:labels': { '.': {} } }, 'f:spec': { 'f:type': {} } }],
      ['editor', { 'f:metadata': { 'f:labels': { 'f:app': {} } } }],
    ]);
    const reapply = { metadata: { labels: { app: 'web' } } };
    const refused = updateManagedFields(updated.entries, {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: 't2',
      before: paths(changed),
      after: paths(changed),
      applied: paths(reapply),
    });
    expect(refused.conflicts.map((c) => [c.manager.manager, printPath(c.path)])).toEqual([
      ['editor', '.metadata.labels.app'],
    ]);
    // spec.type was applied before and is owned by no one else: it is released.
    expect(refused.release.map(printPath)).toEqual(['.spec.type']);
    const forced = updateManagedFields(updated.entries, {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: 't2',
      before: paths(changed),
      after: paths(changed),
      applied: paths(reapply),
      force: true,
    });
    expect(forced.conflicts).toEqual([]);
    expect(forced.entries.map((e) => e.manager)).toEqual(['kubectl']);
    const obj = structuredClone(changed) as Record<string, unknown>;
    for (const p of forced.release) removePath(obj, p);
    expect(obj).toEqual({ metadata: { labels: { app: 'api' } }, spec: {} });
  });
});
