import { describe, expect, it } from 'vitest';
import { fieldAt } from '../registry/builtin-kinds.js';
import type { KubeObject } from '../kube-object.js';
import { parseFieldSelector } from './field-selector.js';

const getters = {
  'metadata.name': (o: KubeObject) => o.metadata?.name ?? '',
  'metadata.namespace': (o: KubeObject) => o.metadata?.namespace ?? '',
  'involvedObject.namespace': fieldAt('involvedObject.namespace'),
  'involvedObject.kind': fieldAt('involvedObject.kind'),
  'spec.nodeName': fieldAt('spec.nodeName'),
  'status.phase': fieldAt('status.phase'),
  'spec.unschedulable': fieldAt('spec.unschedulable'),
};

const event: KubeObject = {
  metadata: { name: 'e1', namespace: 'default' },
  involvedObject: { kind: 'Node', name: 'n1' },
};
const pod: KubeObject = {
  metadata: { name: 'p', namespace: 'ns' },
  spec: { nodeName: 'n1' },
  status: { phase: 'Running' },
};

describe('parseFieldSelector', () => {
  it('matches empty values, as describe asks for cluster-scoped involved objects', () => {
    expect(
      parseFieldSelector('involvedObject.namespace=,involvedObject.kind=Node', getters).matches(event),
    ).toBe(true);
    expect(parseFieldSelector('involvedObject.namespace=default', getters).matches(event)).toBe(false);
  });

  it('handles =, == and != in any order', () => {
    const sel = 'status.phase!=Succeeded,spec.nodeName==n1,status.phase!=Failed';
    expect(parseFieldSelector(sel, getters).matches(pod)).toBe(true);
    expect(parseFieldSelector('status.phase!=Running', getters).matches(pod)).toBe(false);
  });

  it('reads booleans as strings', () => {
    const node: KubeObject = { metadata: { name: 'n' }, spec: { unschedulable: true } };
    expect(parseFieldSelector('spec.unschedulable=true', getters).matches(node)).toBe(true);
    expect(parseFieldSelector('spec.unschedulable=false', getters).matches({ metadata: { name: 'm' } })).toBe(
      false,
    );
    expect(parseFieldSelector('spec.unschedulable=', getters).matches({ metadata: { name: 'm' } })).toBe(
      true,
    );
  });

  it('unescapes values', () => {
    const obj: KubeObject = { metadata: { name: 'a,b=c' } };
    expect(parseFieldSelector('metadata.name=a\\,b\\=c', getters).matches(obj)).toBe(true);
  });

  it('exposes equality for index lookups', () => {
    expect(
      parseFieldSelector('spec.nodeName=n1,status.phase!=Failed', getters).equalityOn('spec.nodeName'),
    ).toBe('n1');
    expect(parseFieldSelector('spec.nodeName!=n1', getters).equalityOn('spec.nodeName')).toBeUndefined();
  });

  it('rejects unknown fields like the API server', () => {
    expect(() => parseFieldSelector('spec.bogus=x', getters)).toThrow(
      'field label not supported: spec.bogus',
    );
    try {
      parseFieldSelector('metadata.name=x,spec.bogus=y', getters);
    } catch (e) {
      expect((e as { status: unknown }).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
  });
});
