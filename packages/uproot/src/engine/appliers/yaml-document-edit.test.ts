import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { editDocument } from './yaml-document-edit.js';

describe('editDocument', () => {
  it('changes only the fields that differ, keeping comments elsewhere', () => {
    const text =
      '# top\ncloud_provider:\n  name: aws # in-tree\nservices:\n  kube-controller: {}\nnodes:\n  - address: 1.1.1.1 # cp\n';
    const doc = parseDocument(text);
    const from = doc.toJS() as Record<string, unknown>;
    const to = structuredClone(from) as {
      cloud_provider: { name: string; useInstanceMetadataHostname?: boolean };
      services: Record<string, unknown>;
    };
    to.cloud_provider.name = 'external-aws';
    to.cloud_provider.useInstanceMetadataHostname = true;
    to.services['kube-controller'] = { extra_args: { 'enable-leader-migration': 'true' } };
    expect(editDocument(doc, from, to)).toBe(3);
    const out = doc.toString();
    expect(out).toContain('# top');
    expect(out).toContain('address: 1.1.1.1 # cp');
    expect(parseDocument(out).toJS()).toEqual(to);
  });

  it('removes fields and reports nothing to do for equal values', () => {
    const doc = parseDocument('a: 1\nb: 2\n');
    expect(editDocument(doc, { a: 1, b: 2 }, { a: 1 })).toBe(1);
    expect(doc.toString()).toBe('a: 1\n');
    expect(editDocument(doc, { a: 1 }, { a: 1 })).toBe(0);
  });
});
