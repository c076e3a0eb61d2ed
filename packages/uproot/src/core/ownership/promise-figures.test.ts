import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendLeaseLooks, type LeaseRecord } from './lease-record.js';
import { at, CCM, KCM, managerPod, T0 } from './ownership-test-support.js';
import { handoverGaps, promiseBreaches, promiseFigures, type PromiseFigures } from './promise-figures.js';

/** `holder` holding `lease` from `acquire` s, renewed until `lastRenew` s, as the journal keeps it. */
function held(lease: string, holder: string, acquire: number, lastRenew: number): LeaseRecord {
  return {
    namespace: 'kube-system',
    name: lease,
    holder,
    observedAt: at(acquire + 0.5),
    acquireTime: at(acquire),
    renewTime: at(acquire),
    lastRenewTime: at(lastRenew),
    leaseDurationSeconds: 15,
  };
}

const figure = (figures: PromiseFigures | undefined, controller: string) =>
  figures?.controllers.find((c) => c.controller === controller);

describe('a handover\u2019s gap, from the lease\u2019s own times', () => {
  it('is the next acquireTime minus the middle of the RetryPeriod after the previous holder\u2019s last renewTime', () => {
    const timeline = [held(CCM, 'cp1_a', 0, 100), held(CCM, 'cp2_b', 118.25, 200)];
    const service = figure(promiseFigures(timeline, { now: T0 + 200_000 }), 'service');
    expect(service).toMatchObject({ ran: true, maxGapSeconds: 17.25, overlapSeconds: 0 });
    expect(service?.bound.seconds).toBe(20);
  });

  it('keeps a holding seen only at its acquisition: the gap after it is a gap, not "not yet running"', () => {
    const timeline = [held(CCM, 'cp1_a', 0, 0), held(CCM, 'cp2_b', 55, 100)];
    expect(figure(promiseFigures(timeline, { now: T0 + 100_000 }), 'service')?.maxGapSeconds).toBe(54); // from 1 s after the acquisition (its only renewal) to the next
  });

  it('counts a controller from when it first runs: before that it is not yet running, not in a gap', () => {
    expect(handoverGaps([{ from: 50, to: 60 }])).toEqual([]);
    expect(handoverGaps([])).toEqual([]);
    expect(
      handoverGaps([
        { from: 50, to: 60 },
        { from: 70, to: 80 },
      ]),
    ).toEqual([{ from: 60, to: 70 }]);
  });

  it('keeps the journal\u2019s last renewal: a renewal moves it, a new holder adds a record', () => {
    const first: LeaseRecord = { ...held(CCM, 'cp1_a', 0, 0), lastRenewTime: undefined };
    const renewed = { ...first, observedAt: at(10), renewTime: at(9) };
    const next = { ...held(CCM, 'cp2_b', 30, 30), lastRenewTime: undefined };
    const { timeline, changed } = appendLeaseLooks([first], [next, renewed]);
    expect(changed).toBe(true);
    expect(timeline.map((r) => [r.holder, r.lastRenewTime])).toEqual([
      ['cp1_a', at(9)],
      ['cp2_b', undefined],
    ]);
    // A compacted look (the poller's) brings its own last renewal.
    const compacted = { ...first, observedAt: at(12), renewTime: at(1), lastRenewTime: at(11) };
    expect(appendLeaseLooks([first], [compacted]).timeline[0]?.lastRenewTime).toBe(at(11));
    // An older renewal seen late never moves it back.
    expect(appendLeaseLooks(timeline.slice(0, 1), [{ ...renewed, renewTime: at(5) }]).changed).toBe(false);
  });

  it('places a look that reaches the journal late by when it was made (the poller drains after a gate)', () => {
    const a = { ...held(CCM, 'cp1_a', 0, 0), lastRenewTime: undefined };
    const b = { ...held(CCM, 'cp2_b', 30, 30), lastRenewTime: undefined };
    const lateLookAtA = { ...a, observedAt: at(20), renewTime: at(19) };
    const { timeline } = appendLeaseLooks([a, b], [lateLookAtA]);
    expect(timeline.map((r) => [r.holder, r.lastRenewTime])).toEqual([
      ['cp1_a', at(19)],
      ['cp2_b', undefined],
    ]);
    const c = { ...held(CCM, 'cp3_c', 10, 10), lastRenewTime: undefined, observedAt: at(10) };
    expect(appendLeaseLooks([a, b], [c]).timeline.map((r) => r.holder)).toEqual(['cp1_a', 'cp3_c', 'cp2_b']);
  });

  it('reads an old journal (no lastRenewTime): the first renewal seen stands in, a longer gap', () => {
    const old = [{ ...held(CCM, 'cp1_a', 0, 0), lastRenewTime: undefined, renewTime: at(3) }];
    const timeline = [...old, held(CCM, 'cp2_b', 20, 40)];
    expect(figure(promiseFigures(timeline, { now: T0 + 40_000 }), 'service')?.maxGapSeconds).toBe(16);
  });

  it('is one figure per controller across the 1.28 rename (service-lb-controller is service)', () => {
    const pods = {
      [KCM]: [
        managerPod(KCM, 'cp1', ['--cloud-provider=aws'], { version: '1.27.3' }),
        managerPod(KCM, 'cp2', ['--cloud-provider=aws'], { version: '1.28.4' }),
      ],
      [CCM]: [],
    };
    const timeline = [held(KCM, 'cp1_a', 0, 100), held(KCM, 'cp2_b', 112, 200)];
    const figures = promiseFigures(timeline, { now: T0 + 200_000, pods });
    expect(figures?.controllers.map((c) => c.controller)).not.toContain('service-lb-controller');
    expect(figure(figures, 'service')).toMatchObject({ maxGapSeconds: 11, components: [KCM] });
  });

  it('judges a window: a gap before it is not the step\u2019s, one reaching into it counts whole', () => {
    const timeline = [held(CCM, 'a_1', 0, 100), held(CCM, 'b_2', 130, 200), held(CCM, 'c_3', 225, 300)];
    const evidence = { now: T0 + 300_000 };
    const later = promiseFigures(timeline, evidence, { from: T0 + 210_000, to: T0 + 300_000 });
    expect(figure(later, 'service')?.maxGapSeconds).toBe(24);
    const straddling = promiseFigures(timeline, evidence, { from: T0 + 120_000, to: T0 + 205_000 });
    expect(figure(straddling, 'service')?.maxGapSeconds).toBe(29);
    const breaches = promiseBreaches(later!);
    expect(breaches.filter((b) => b.controller === 'service')).toMatchObject([
      { kind: 'gap', seconds: 24, bound: { seconds: 20 } },
    ]);
    // Acknowledged breaches (ended by then) are left out.
    expect(promiseBreaches(later!, T0 + 250_000)).toEqual([]);
  });

  it('stops only on a proven breach: the estimate\u2019s own error (RetryPeriod/2) never crosses the bound', () => {
    const evidence = { now: T0 + 200_000 };
    // Read from half a RetryPeriod after the last renewal: 20.5 s, which may be 19.5 s in truth.
    const near = promiseFigures([held(CCM, 'a_1', 0, 100), held(CCM, 'b_2', 121.5, 200)], evidence)!;
    expect(figure(near, 'service')?.maxGapSeconds).toBe(20.5);
    expect(promiseBreaches(near)).toEqual([]);
    // 21.5 s: even a holder that lived a whole RetryPeriod past its last renewal left 20.5 s.
    const past = promiseFigures([held(CCM, 'a_1', 0, 100), held(CCM, 'b_2', 122.5, 200)], evidence)!;
    expect(promiseBreaches(past).filter((b) => b.controller === 'service')).toMatchObject([
      { kind: 'gap', seconds: 21.5 },
    ]);
  });

  it('reports an overlap: two managers\u2019 leaders both running service (each lives until another is seen)', () => {
    const timeline = [held(KCM, 'cp1_k', 0, 100), held(CCM, 'cp1_c', 50, 100)];
    const service = figure(promiseFigures(timeline, { now: T0 + 100_000 }), 'service');
    expect(service?.overlapSeconds).toBeGreaterThan(0);
    expect(promiseBreaches(promiseFigures(timeline, { now: T0 + 100_000 })!)[0]).toMatchObject({
      kind: 'overlap',
    });
  });

  it('property: gaps are never negative, and the largest is max(next acquire - (last renewal + RetryPeriod/2))', () => {
    const holding = fc.record({
      pause: fc.integer({ min: 0, max: 40_000 }),
      hold: fc.integer({ min: 1, max: 60_000 }),
    });
    fc.assert(
      fc.property(fc.array(holding, { minLength: 1, maxLength: 8 }), (holdings) => {
        let t = 0;
        const records: LeaseRecord[] = [];
        const expected: number[] = [];
        holdings.forEach((h, i) => {
          const acquire = t + h.pause;
          // The holder is read as gone half a RetryPeriod (1 s) after its last renewal, never past the next.
          if (i > 0) expected.push(Math.max(0, h.pause - 1_000));
          records.push(held(CCM, `h${i}_x`, acquire / 1000, (acquire + h.hold) / 1000));
          t = acquire + h.hold;
        });
        const figures = promiseFigures(records, { now: T0 + t });
        const service = figure(figures, 'service')!;
        expect(service.gaps.every((g) => g.to - g.from >= 0)).toBe(true);
        const largest = Math.max(0, ...expected.filter((p) => p > 0));
        expect(service.maxGapSeconds).toBeCloseTo(largest / 1000, 3);
        expect(service.overlapSeconds).toBe(0);
      }),
      { numRuns: 60 },
    );
  });
});

/**
 * The RKE switch-to-external sequence of `uproot demo --scenario rke-intree --target-version 1.31` (seconds
 * from the in-tree KCM's acquisition; the twin's ledger: nodeipam's longest handover 18.3 s). `rke up` rolled
 * cp1 (B stopped at 46.2), a standby on cp2 (E) held the KCM lease from 61.5 until its own host rolled
 * (63.2), then cp1's new KCM (D) took it at 80.2. The journal of that run kept no look between 42.25 and
 * 102.25, so it holds B's renewal seen at 41.6 and then D (leaseTransitions 1 → 3: E was never seen): the
 * looks made while the run waited for the person's `rke up` were dropped when it ended (now kept:
 * engine/gates/lease-poller.ts stopKeepingLooks).
 */
describe('the RKE switch, read from the looks the journal kept', () => {
  const withLooks = (bLastRenew: number, standby: LeaseRecord[]): LeaseRecord[] => [
    held(KCM, 'cp1_a', 0, 2),
    held(KCM, 'cp1_b', 21.6, bLastRenew),
    ...standby,
    held(KCM, 'cp1_d', 80.2, 102.2),
  ];
  const nodeipam = (timeline: LeaseRecord[]) =>
    figure(promiseFigures(timeline, { now: T0 + 102_250 }), 'nodeipam')?.maxGapSeconds;

  it('reads the ledger\u2019s handovers (within 1 s) when the looks saw every holding', () => {
    const gap = nodeipam(withLooks(45.6, [held(KCM, 'cp2_e', 61.5, 61.5)]));
    expect(gap).toBeGreaterThan(17.3);
    expect(gap).toBeLessThan(19.3);
  });

  it('reads one long gap when no look came between the last renewal seen and the next holder', () => {
    // The gap the promise-kept gate reported on RKE (37.58 s): an artefact of the missing looks.
    expect(nodeipam(withLooks(41.6, []))).toBeCloseTo(37.6, 1);
  });
});

/**
 * The crash campaign's false breach (RKE2, seed 11, on the twin's clock): uproot was killed while the KCM
 * leader still renewed; the next run first looked 58 s later, once another KCM held the lease. The twin's
 * ledger shows a 17 s handover; the journal can only bound it by 58 s.
 */
describe('a handover no uproot process watched', () => {
  const seen = (r: LeaseRecord, lastSeen: number): LeaseRecord => ({ ...r, lastSeenAt: at(lastSeen) });

  it('is reported with its upper bound and not judged: the holder may have renewed all through it', () => {
    const timeline = [seen(held(KCM, 'cp3_a', 0, 100), 100.5), seen(held(KCM, 'cp2_b', 158.7, 200), 200)];
    const figures = promiseFigures(timeline, { now: T0 + 200_000 })!;
    const nodeipam = figure(figures, 'nodeipam')!;
    expect(nodeipam.maxGapSeconds).toBe(0);
    expect(nodeipam.unobservedGaps.map((g) => (g.to - g.from) / 1000)).toEqual([57.7]);
    expect(promiseBreaches(figures)).toEqual([]);
  });

  it('is judged when a look saw the lease go stale before the next holder', () => {
    // The same handover watched: looks went on seeing the last renewal at 100 s until 140 s.
    const timeline = [seen(held(KCM, 'cp3_a', 0, 100), 140), seen(held(KCM, 'cp2_b', 158.7, 200), 200)];
    const figures = promiseFigures(timeline, { now: T0 + 200_000 })!;
    expect(figure(figures, 'nodeipam')).toMatchObject({ maxGapSeconds: 57.7, unobservedGaps: [] });
    expect(promiseBreaches(figures).map((b) => b.controller)).toContain('nodeipam');
  });

  it('is judged when the next holder was seen within two RetryPeriods of the last look', () => {
    const timeline = [seen(held(KCM, 'cp3_a', 0, 100), 100.5), seen(held(KCM, 'cp2_b', 103, 200), 200)];
    const nodeipam = figure(promiseFigures(timeline, { now: T0 + 200_000 }), 'nodeipam')!;
    expect(nodeipam).toMatchObject({ maxGapSeconds: 2, unobservedGaps: [] });
  });

  it('keeps the newest look in the journal: lastSeenAt moves with every look at the same holding', () => {
    const first = held(KCM, 'cp3_a', 0, 10);
    const look = { ...first, observedAt: at(30), renewTime: at(10) };
    const { timeline, changed } = appendLeaseLooks([first], [look]);
    expect(changed).toBe(true);
    expect(timeline[0]).toMatchObject({ lastRenewTime: at(10), lastSeenAt: at(30) });
    // An older look never moves it back; a compacted look brings its own.
    expect(appendLeaseLooks(timeline, [{ ...look, observedAt: at(20) }]).timeline[0]?.lastSeenAt).toBe(
      at(30),
    );
    expect(appendLeaseLooks(timeline, [{ ...look, lastSeenAt: at(45) }]).timeline[0]?.lastSeenAt).toBe(
      at(45),
    );
  });
});
