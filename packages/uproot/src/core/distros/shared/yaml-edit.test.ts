import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseAllDocuments, stringify } from 'yaml';
import { editYamlText, renderBlockLiteral } from './yaml-edit.js';

const plain = (text: string, i = 0): unknown => parseAllDocuments(text)[i]!.toJS();

const SOURCE = `# header comment
apiVersion: v1   # trailing
kind: Thing
spec:
  list:
  - a   # keep me
  - 'b'
  map:
    k: v

    # own line comment
    block: |-
      line1
      line2
  flow: [1, 2]
other: x
---
kind: Second # untouched
`;

describe('editYamlText', () => {
  it('returns the text unchanged when the value is unchanged', () => {
    expect(editYamlText(SOURCE, 0, plain(SOURCE))).toBe(SOURCE);
  });

  it('changes only the edited scalar, keeping its trailing comment', () => {
    const v = plain(SOURCE) as { apiVersion: string };
    v.apiVersion = 'v2';
    const out = editYamlText(SOURCE, 0, v);
    expect(out).toBe(SOURCE.replace('apiVersion: v1   # trailing', 'apiVersion: v2   # trailing'));
  });

  it('appends to a list in the list\u2019s own indentation and keeps item comments', () => {
    const v = plain(SOURCE) as { spec: { list: string[] } };
    v.spec.list.push('c');
    const out = editYamlText(SOURCE, 0, v);
    expect(out).toContain("  - 'b'\n  - c\n  map:");
    expect(out).toContain('- a   # keep me');
  });

  it('removes a list item in the middle without touching its neighbours', () => {
    const src = 'args:\n  - one # 1\n  - two # 2\n  - three # 3\n';
    expect(editYamlText(src, 0, { args: ['one', 'three'] })).toBe('args:\n  - one # 1\n  - three # 3\n');
  });

  it('adds and deletes keys, keeping comments and blank lines elsewhere', () => {
    const v = plain(SOURCE) as { spec: { map: Record<string, unknown> }; other?: string; added?: unknown };
    delete v.other;
    v.spec.map.extra = { nested: ['x'] };
    const out = editYamlText(SOURCE, 0, v);
    expect(plain(out)).toEqual(v);
    expect(out).toContain('\n    # own line comment\n');
    expect(out).not.toContain('other: x');
    expect(out.endsWith('---\nkind: Second # untouched\n')).toBe(true);
  });

  it('rewrites a block scalar in place with its indentation and chomping', () => {
    const v = plain(SOURCE) as { spec: { map: { block: string } } };
    v.spec.map.block = 'line1\nline2\nline3';
    const out = editYamlText(SOURCE, 0, v);
    expect(out).toContain('    block: |-\n      line1\n      line2\n      line3\n  flow');
  });

  it('edits only the requested document of a stream', () => {
    const out = editYamlText(SOURCE, 1, { kind: 'Changed' });
    expect(out.startsWith(SOURCE.slice(0, SOURCE.indexOf('---')))).toBe(true);
    expect(plain(out, 1)).toEqual({ kind: 'Changed' });
  });

  it('keeps a flow collection in flow style', () => {
    const v = plain(SOURCE) as { spec: { flow: number[] } };
    v.spec.flow = [1, 2, 3];
    expect(editYamlText(SOURCE, 0, v)).toContain('  flow: [1,2,3]\n');
  });

  it('deletes the first key of a list item that shares the dash line', () => {
    const src = 'items:\n- a: 1\n  b: 2\n- c: 3\n';
    const out = editYamlText(src, 0, { items: [{ b: 2 }, { c: 3 }] });
    expect(out).toBe('items:\n- b: 2\n- c: 3\n');
  });

  it('replaces an empty list with a new one, and a list with an empty one', () => {
    expect(plain(editYamlText('a: []\nb: 1\n', 0, { a: ['x'], b: 1 }))).toEqual({ a: ['x'], b: 1 });
    expect(editYamlText('a:\n  - x\nb: 1\n', 0, { a: [], b: 1 })).toBe('a: []\nb: 1\n');
  });

  it('turns any document into any other (property)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'spec', 'kube-arg', 'x y', '1', 'true');
    const scalar = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('true', '', 'multi\nline', '- dash', '#hash', "it's", 'a: b'),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    }));
    const root = fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 });
    fc.assert(
      fc.property(root, root, fc.boolean(), (before, after, indentSeq) => {
        const text = `# leading\n${stringify(before, { indentSeq })}`;
        const out = editYamlText(text, 0, after);
        expect(JSON.parse(JSON.stringify(plain(out)))).toEqual(JSON.parse(JSON.stringify(after)));
        expect(out.startsWith('# leading\n')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('renderBlockLiteral', () => {
  it('chooses the chomping indicator from the trailing newlines', () => {
    expect(renderBlockLiteral('a\nb', 2)).toBe('|-\n  a\n  b\n');
    expect(renderBlockLiteral('a\n', 2)).toBe('|\n  a\n');
    expect(renderBlockLiteral('a\n\n', 2)).toBe('|+\n  a\n\n');
  });

  it('refuses values a literal block cannot hold', () => {
    expect(renderBlockLiteral('  leading space', 2)).toBeUndefined();
    expect(renderBlockLiteral('', 2)).toBeUndefined();
    expect(renderBlockLiteral('a\rb', 2)).toBeUndefined();
  });
});
