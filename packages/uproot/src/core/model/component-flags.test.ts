import { describe, expect, it } from 'vitest';
import { flagEnabled, keyValueList, normalizeArg, parseFlags } from './component-flags.js';

describe('parseFlags', () => {
  it('reads --k=v, --k v and bare booleans; the last occurrence wins', () => {
    const f = parseFlags([
      'kube-controller-manager',
      '--cloud-provider',
      'aws',
      '--leader-elect',
      '--v=2',
      '--cloud-provider=external',
      '--enable-leader-migration',
      'extra',
    ]);
    expect(Object.fromEntries(f)).toEqual({
      'cloud-provider': 'external',
      'leader-elect': 'true',
      v: '2',
      'enable-leader-migration': 'true',
    });
  });

  it.each([
    ['--leader-elect=false', false],
    ['--leader-elect=0', false],
    ['--leader-elect=F', false],
    ['--leader-elect', true],
    ['--leader-elect=true', true],
  ])('flagEnabled(%s)', (arg, expected) => {
    expect(flagEnabled(parseFlags([arg]), 'leader-elect', !expected)).toBe(expected);
  });

  it('defaults absent flags and normalizes distribution args', () => {
    expect(flagEnabled(parseFlags([]), 'leader-elect', true)).toBe(true);
    expect(normalizeArg('cloud-provider=external')).toBe('--cloud-provider=external');
    expect(keyValueList('CSIMigrationAWS=false, Foo=true')).toEqual(
      new Map([
        ['CSIMigrationAWS', 'false'],
        ['Foo', 'true'],
      ]),
    );
  });
});
