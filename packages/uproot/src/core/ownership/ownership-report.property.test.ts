import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';
import { controllersOf } from '../leader-migration/index.js';
import { controllerRows } from './controller-rows.js';
import { totalLength, type TimeSpan } from './intervals.js';
import { analyzeLedger, logicalControllerName, type LedgerEntry } from './ledger.js';
import { ownershipReport, type OwnershipInterval } from './ownership-report.js';

const interval = fc
  .record({
    identity: fc.constantFrom('kcm-a', 'kcm-b', 'ccm-a', 'ccm-b'),
    from: fc.integer({ min: 0, max: 1_000 }),
    length: fc.integer({ min: 1, max: 400 }),
  })
  .map(({ identity, from, length }): OwnershipInterval => ({
    identity,
    component: identity.startsWith('kcm') ? 'kube-controller-manager' : 'cloud-controller-manager',
    controllerName: 'service',
    from,
    to: from + length,
    open: false,
  }));
const windowArb = fc
  .record({ from: fc.integer({ min: 0, max: 800 }), length: fc.integer({ min: 1, max: 800 }) })
  .map(({ from, length }): TimeSpan => ({ from, to: from + length }));

const report = (intervals: readonly OwnershipInterval[], window: TimeSpan) =>
  ownershipReport(new Map([['service', intervals]]), window).controllers.service!;

/** The length of the union of spans (owned time, counting overlaps once). */
function unionLength(spans: readonly TimeSpan[]): number {
  let total = 0;
  let cursor = -Infinity;
  for (const s of [...spans].sort((a, b) => a.from - b.from)) {
    total += Math.max(0, s.to - Math.max(cursor, s.from));
    cursor = Math.max(cursor, s.to);
  }
  return total;
}

const inside = (s: TimeSpan, w: TimeSpan): boolean => s.from >= w.from && s.to <= w.to && s.to > s.from;

describe('ownership arithmetic (properties)', () => {
  it('a run that ends where the window begins did not run in it; one that started and stopped inside did', () => {
    const run = (from: number, to: number): OwnershipInterval => ({
      identity: 'kcm-a',
      component: 'kube-controller-manager',
      controllerName: 'service',
      from,
      to,
      open: false,
    });
    expect(report([run(0, 100)], { from: 100, to: 200 }).state).toBe('not-yet-running');
    expect(report([run(120, 120), run(150, 200)], { from: 100, to: 200 })).toMatchObject({
      state: 'running',
      firstRunAt: 120,
      gaps: [{ from: 120, to: 150 }],
    });
  });

  it('owned time plus gaps is the window from the first run on; no gap before the first run', () => {
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 8 }), windowArb, (intervals, window) => {
        const c = report(intervals, window);
        const touching = intervals.filter((i) => i.to > window.from && i.from < window.to);
        if (touching.length === 0) {
          expect(c.state).toBe('not-yet-running');
          expect(c.gaps).toEqual([]);
          return;
        }
        if (c.state !== 'running') throw new Error(`expected running, got ${c.state}`);
        expect(c.firstRunAt).toBe(Math.max(window.from, Math.min(...touching.map((i) => i.from))));
        expect(unionLength(c.intervals) + totalLength(c.gaps)).toBe(window.to - c.firstRunAt);
        for (const g of c.gaps) expect(g.from).toBeGreaterThanOrEqual(c.firstRunAt);
        expect(c.maxGapSeconds * 1000).toBe(Math.max(0, ...c.gaps.map((g) => g.to - g.from)));
      }),
    );
  });

  it('clips everything to the window, and clipping first changes nothing', () => {
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 8 }), windowArb, (intervals, window) => {
        const c = report(intervals, window);
        for (const s of [...c.intervals, ...c.overlaps, ...c.gaps]) expect(inside(s, window)).toBe(true);
        const preClipped = intervals
          .map((i) => ({ ...i, from: Math.max(i.from, window.from), to: Math.min(i.to, window.to) }))
          .filter((i) => i.to > i.from);
        expect(report(preClipped, window)).toEqual(c);
      }),
    );
  });

  it('overlaps do not depend on the order of the intervals, and are symmetric in the identities', () => {
    fc.assert(
      fc.property(
        fc.array(interval, { maxLength: 8 }),
        windowArb,
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (intervals, window, seed) => {
          const shuffled = [...intervals].sort(
            (a, b) => ((a.from * 31 + seed) % 97) - ((b.from * 31 + seed) % 97),
          );
          expect(report(shuffled, window)).toEqual(report(intervals, window));
          // Swapping the names of two processes swaps them in the overlaps, and changes no figure.
          const swap = (id: string): string => (id === 'kcm-a' ? 'ccm-a' : id === 'ccm-a' ? 'kcm-a' : id);
          const swapped = report(
            intervals.map((i) => ({ ...i, identity: swap(i.identity) })),
            window,
          );
          const original = report(intervals, window);
          expect(swapped.overlaps.map((o) => [o.from, o.to, [...o.identities.map(swap)].sort()])).toEqual(
            original.overlaps.map((o) => [o.from, o.to, [...o.identities]]),
          );
          if (original.state === 'running' && swapped.state === 'running') {
            expect(swapped.overlapSeconds).toBe(original.overlapSeconds);
            expect(swapped.maxGapSeconds).toBe(original.maxGapSeconds);
          }
        },
      ),
    );
  });

  it('a controller under any of its names, in either era and manager, is one row', () => {
    const v127 = parseKubernetesVersion('1.27.16');
    const v128 = parseKubernetesVersion('1.28.15');
    const names = [
      ...controllersOf('kube-controller-manager', v127),
      ...controllersOf('kube-controller-manager', v128),
      ...controllersOf('cloud-controller-manager', v127),
      ...controllersOf('cloud-controller-manager', v128),
    ];
    const entryArb = fc.record({
      controller: fc.constantFrom(...names),
      component: fc.constantFrom('kube-controller-manager', 'cloud-controller-manager'),
      identity: fc.constantFrom('a', 'b', 'c'),
      time: fc.integer({ min: 0, max: 1_000 }),
      action: fc.constantFrom('started', 'stopped', 'not-configured', 'sync'),
    });
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 30 }), (entries: LedgerEntry[]) => {
        const analysis = analyzeLedger(entries, { window: { from: 0, to: 1_000 } });
        const logical = new Set(entries.map((e) => logicalControllerName(e.controller)));
        expect(new Set(Object.keys(analysis.controllers))).toEqual(logical);
        const rows = controllerRows(analysis).map((r) => r.name);
        expect(new Set(rows).size).toBe(rows.length);
      }),
    );
  });
});
