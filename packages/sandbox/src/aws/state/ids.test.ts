import { describe, expect, it } from 'vitest';
import { IdGenerator, stableHex } from './ids.js';

describe('IdGenerator', () => {
  it('produces the same sequence for the same kinds, so seeded runs repeat', () => {
    const a = new IdGenerator();
    const b = new IdGenerator();
    const take = (g: IdGenerator) => [g.ec2Id('i'), g.ec2Id('vpc'), g.ec2Id('i'), g.iamId('AROA'), g.uuid()];
    expect(take(a)).toEqual(take(b));
  });

  it('shapes ids the way AWS does', () => {
    const g = new IdGenerator();
    expect(g.ec2Id('i')).toMatch(/^i-0[0-9a-f]{16}$/);
    expect(g.ec2Id('subnet')).toMatch(/^subnet-0[0-9a-f]{16}$/);
    expect(g.iamId('AROA')).toMatch(/^AROA[A-Z2-7]{17}$/);
    expect(g.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('never repeats an id of one kind', () => {
    const g = new IdGenerator();
    const ids = new Set(Array.from({ length: 5000 }, () => g.ec2Id('i')));
    expect(ids.size).toBe(5000);
  });

  it('gives different kinds different sequences', () => {
    const g = new IdGenerator();
    expect(g.ec2Id('i').slice(2)).not.toBe(g.ec2Id('vpc').slice(4));
  });

  it('orders resources with a strictly increasing sequence', () => {
    const g = new IdGenerator();
    const seqs = [g.nextSeq(), g.nextSeq(), g.nextSeq()];
    expect(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!).toBe(true);
  });
});

describe('stableHex', () => {
  it('depends only on the text', () => {
    expect(stableHex('i-1', 16)).toBe(stableHex('i-1', 16));
    expect(stableHex('i-1', 16)).not.toBe(stableHex('i-2', 16));
    expect(stableHex('x', 40)).toMatch(/^[0-9a-f]{40}$/);
  });
});
