import { describe, expect, it } from 'vitest';
import {
  annotationCauses,
  goQuote,
  isQualifiedName,
  isValidLabelValue,
  labelCauses,
  nameErrors,
  objectMetaCauses,
} from './meta-validation.js';

describe('ObjectMeta validation (apimachinery v0.32 texts)', () => {
  it('qualified names: prefix, name part, too many slashes', () => {
    expect(isQualifiedName('example.com/MyName')).toEqual([]);
    expect(isQualifiedName('a/b/c')[0]).toMatch(
      /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/,
    );
    expect(isQualifiedName('/x')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Bad_Prefix/x')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    expect(isQualifiedName('x/')).toEqual([
      'name part must be non-empty',
      expect.stringMatching(/^name part must consist of/),
    ]);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(isQualifiedName('_x')).toHaveLength(1);
  });

  it('label values may be empty, at most 63 characters', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('a'.repeat(63))).toEqual([]);
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isValidLabelValue('-a')[0]).toMatch(/^a valid label must be an empty string/);
  });

  it('label causes name the key or the value as the bad value, keys in order', () => {
    expect(labelCauses({ 'z z': 'ok', a: 'bad value' }).map((c) => c.message.split(':')[1])).toEqual([
      ' "bad value"',
      ' "z z"',
    ]);
  });

  it('annotation keys ignore case; the total of keys and values is at most 262144 bytes', () => {
    expect(annotationCauses({ 'Example.COM/Key': 'v' })).toEqual([]);
    expect(annotationCauses({ a: 'x'.repeat(262_143) })).toEqual([]);
    expect(annotationCauses({ a: 'x'.repeat(262_144) })).toEqual([
      {
        field: 'metadata.annotations',
        message: 'Too long: may not be more than 262144 bytes',
        type: 'FieldValueTooLong',
      },
    ]);
  });

  it('names per rule, generateName with its trailing dash masked', () => {
    expect(nameErrors('a.b', 'dns-label')).toEqual(['must not contain dots']);
    expect(nameErrors('a.b', 'dns-subdomain')).toEqual([]);
    expect(nameErrors('1a', 'dns-1035-label')[0]).toMatch(/^a DNS-1035 label/);
    expect(nameErrors('1a', 'dns-label')).toEqual([]);
    expect(nameErrors('web-', 'dns-subdomain', true)).toEqual([]);
    expect(nameErrors('web-', 'dns-subdomain')).toHaveLength(1);
    expect(nameErrors('a/b', 'path-segment')).toEqual(["may not contain '/'"]);
    expect(objectMetaCauses({}, 'dns-subdomain')).toEqual([
      {
        field: 'metadata.name',
        message: 'Required value: name or generateName is required',
        type: 'FieldValueRequired',
      },
    ]);
  });

  it("quotes bad values as Go's %q does", () => {
    expect(goQuote('a "b"\n\u0001é')).toBe('"a \\"b\\"\\n\\x01é"');
  });
});
