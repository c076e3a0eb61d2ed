import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('never holds more than its capacity and keeps what is used', () => {
    const cache = new BoundedCache<string, number>(4);
    for (let i = 0; i < 100; i++) {
      cache.set(`k${i}`, i);
      expect(cache.get('k0')).toBe(0);
      expect(cache.size).toBeLessThanOrEqual(4);
    }
    expect(cache.get('k99')).toBe(99);
    expect(cache.get('k50')).toBeUndefined();
  });

  it('forgets everything on clear', () => {
    const cache = new BoundedCache<string, number>(10);
    cache.set('a', 1);
    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
