import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cidrContains, formatCidr, parseCidr, PodCidrAllocator } from './pod-cidr.js';

describe('pod CIDR allocation', () => {
  it('hands out the lowest free /24 after marking existing ones', () => {
    const a = new PodCidrAllocator('10.42.0.0/16', 24);
    expect(a.occupy('10.42.0.0/24')).toBe(true);
    expect(a.occupy('10.42.2.0/24')).toBe(true);
    expect(a.next()).toBe('10.42.1.0/24');
    expect(a.next()).toBe('10.42.3.0/24');
  });

  it('ignores CIDRs outside the range or of another size', () => {
    const a = new PodCidrAllocator('10.42.0.0/16', 24);
    expect(a.occupy('10.43.0.0/24')).toBe(false);
    expect(a.occupy('10.42.0.0/25')).toBe(false);
    expect(a.next()).toBe('10.42.0.0/24');
  });

  it('runs out when the range is exhausted', () => {
    const a = new PodCidrAllocator('10.0.0.0/23', 24);
    expect([a.next(), a.next(), a.next()]).toEqual(['10.0.0.0/24', '10.0.1.0/24', undefined]);
  });

  it('rejects a mask that does not fit', () => {
    expect(() => new PodCidrAllocator('10.0.0.0/24', 16)).toThrow(/does not fit/);
    expect(() => new PodCidrAllocator('nonsense', 24)).toThrow(/invalid cluster CIDR/);
  });

  it('never hands out the same block twice and stays inside the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 20 }), fc.integer({ min: 1, max: 6 }), (prefix, extra) => {
        const cluster = `10.0.0.0/${prefix}`;
        const mask = Math.min(32, prefix + extra);
        const a = new PodCidrAllocator(cluster, mask);
        const seen = new Set<string>();
        for (let i = 0; i < Math.min(64, 2 ** extra); i++) {
          const next = a.next();
          expect(next).toBeDefined();
          expect(seen.has(next!)).toBe(false);
          seen.add(next!);
          expect(cidrContains(parseCidr(cluster)!, parseCidr(next!)!)).toBe(true);
        }
      }),
    );
  });

  it('normalises the network address', () => {
    expect(formatCidr(parseCidr('10.1.2.3/16')!)).toBe('10.1.0.0/16');
  });
});
