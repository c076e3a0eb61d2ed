import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileValueMatcher, isWildcardPattern, literalValues } from './wildcard.js';

describe('compileValueMatcher', () => {
  it.each([
    ['ip-10-0-1-23.ec2.internal', 'ip-10-0-1-23.ec2.internal', true],
    ['ip-10-0-1-23.ec2.internal', 'ip-10-0-1-24.ec2.internal', false],
    ['ip-10-0-*', 'ip-10-0-1-23.ec2.internal', true],
    ['*.ec2.internal', 'ip-10-0-1-23.ec2.internal', true],
    ['*.compute.internal', 'ip-10-0-1-23.ec2.internal', false],
    ['node-?', 'node-1', true],
    ['node-?', 'node-12', false],
    ['node-??', 'node-12', true],
    ['*', '', true],
    ['a.c', 'abc', false], // a dot is literal, not a regex wildcard
    ['a\\*b', 'a*b', true], // an escaped star is literal
    ['a\\*b', 'axxb', false],
    ['a\\?', 'a?', true],
    ['(x)', '(x)', true],
  ])('pattern %j against %j → %s', (pattern, value, expected) => {
    expect(compileValueMatcher([pattern])(value)).toBe(expected);
  });

  it('matches when any pattern matches (OR within a filter)', () => {
    const match = compileValueMatcher(['running', 'stopp*']);
    expect(match('running')).toBe(true);
    expect(match('stopped')).toBe(true);
    expect(match('terminated')).toBe(false);
  });

  it('is case-sensitive, as EC2 filters are', () => {
    expect(compileValueMatcher(['Running'])('running')).toBe(false);
  });

  it('treats a pattern without wildcards exactly like string equality', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[*?\\]/.test(s)),
        fc.string(),
        (pattern, value) => {
          expect(compileValueMatcher([pattern])(value)).toBe(pattern === value);
        },
      ),
    );
  });

  it('star matches every value that starts and ends with the surrounding text', () => {
    const safe = fc.string().filter((s) => !/[*?\\]/.test(s));
    fc.assert(
      fc.property(safe, safe, safe, (head, middle, tail) => {
        expect(compileValueMatcher([`${head}*${tail}`])(head + middle + tail)).toBe(true);
      }),
    );
  });
});

describe('literal detection', () => {
  it('tells live wildcards from escaped ones', () => {
    expect(isWildcardPattern('a*')).toBe(true);
    expect(isWildcardPattern('a\\*')).toBe(false);
    expect(isWildcardPattern('plain')).toBe(false);
  });

  it('returns literal values (unescaped) only when no pattern has a wildcard', () => {
    expect(literalValues(['a', 'b\\*'])).toEqual(['a', 'b*']);
    expect(literalValues(['a', 'b*'])).toBeUndefined();
  });
});
