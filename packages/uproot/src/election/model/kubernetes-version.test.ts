import { describe, expect, it } from 'vitest';
import { atLeast, compareVersions, nextMinor, parseKubernetesVersion } from './kubernetes-version.js';
import { UprootError } from '../../errors/index.js';

describe('parseKubernetesVersion', () => {
  it.each([
    ['1.26', [1, 26, 0]],
    ['v1.26.15', [1, 26, 15]],
    ['v1.26.15+rke2r1', [1, 26, 15]],
    ['v1.26.15-rancher1-1', [1, 26, 15]],
    [' 1.32.4 ', [1, 32, 4]],
  ])('%s', (raw, [major, minor, patch]) => {
    expect(parseKubernetesVersion(raw)).toMatchObject({ major, minor, patch });
  });

  it('rejects garbage with a located input error', () => {
    try {
      parseKubernetesVersion('latest', '--target-version');
      expect.unreachable();
    } catch (e) {
      expect(UprootError.is(e)).toBe(true);
      expect((e as UprootError).location).toEqual({ field: '--target-version', value: 'latest' });
      expect((e as UprootError).exitCode).toBe(2);
    }
  });

  it('orders and steps versions', () => {
    const v126 = parseKubernetesVersion('1.26.3');
    expect(compareVersions(v126, parseKubernetesVersion('1.27'))).toBeLessThan(0);
    expect(atLeast(v126, 1, 26)).toBe(true);
    expect(atLeast(v126, 1, 27)).toBe(false);
    expect(nextMinor(v126)).toMatchObject({ major: 1, minor: 27, patch: 0 });
  });
});
