import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JITTER_FACTOR, type ElectionTimings } from './election-config.js';
import { runChaos, type ChaosSchedule } from '../test-support/chaos-harness.js';

/**
 * Safety of the elector under faults (docs/election.md, "Lease bounds"). With no process frozen and every
 * answer back within D, two electors never both believe they lead when D + (RP + RD)/r_min < LD/r_max; with
 * frozen processes or slower answers the overlap is bounded by D + (RP + RD)/r_min. And once faults stop,
 * exactly one live elector leads and holds the lease.
 *
 * Runs: ELECTION_PROPERTY_RUNS (default 200). Replay: ELECTION_PROPERTY_SEED (printed by fast-check on failure).
 */
const RUNS = Number(process.env.ELECTION_PROPERTY_RUNS ?? 200);
const SEED =
  process.env.ELECTION_PROPERTY_SEED === undefined ? undefined : Number(process.env.ELECTION_PROPERTY_SEED);

const TIMINGS: ElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const HORIZON = 90_000;
const QUIET = 60_000;

const schedule: fc.Arbitrary<ChaosSchedule> = fc
  .integer({ min: 2, max: 4 })
  .chain((n) => {
    const slot = fc.integer({ min: 0, max: n - 1 });
    const time = fc.integer({ min: 0, max: HORIZON - 1 });
    return fc.record({
      timings: fc.constant(TIMINGS),
      electors: fc.array(
        fc.record({
          rate: fc.double({ min: 0.99, max: 1.01, noNaN: true }),
          startAt: fc.integer({ min: 0, max: 5_000 }),
        }),
        { minLength: n, maxLength: n },
      ),
      crashes: fc.array(fc.record({ slot, at: time, downtime: fc.integer({ min: 0, max: 20_000 }) }), {
        maxLength: 3,
      }),
      pauses: fc.oneof(
        { weight: 3, arbitrary: fc.constant<{ slot: number; at: number; duration: number }[]>([]) },
        {
          weight: 1,
          arbitrary: fc.array(
            fc.record({ slot, at: time, duration: fc.integer({ min: 100, max: 30_000 }) }),
            { maxLength: 2 },
          ),
        },
      ),
      apiErrors: fc.array(
        fc.record({
          at: time,
          duration: fc.integer({ min: 1_000, max: 20_000 }),
          probability: fc.double({ min: 0.1, max: 1, noNaN: true }),
          kind: fc.constantFrom('Unavailable' as const, 'Conflict' as const, 'Timeout' as const),
        }),
        { maxLength: 2 },
      ),
      delays: fc.array(
        fc.record({
          slot,
          at: time,
          duration: fc.integer({ min: 1_000, max: 20_000 }),
          requestDelayMs: fc.integer({ min: 0, max: 3_000 }),
          responseDelayMs: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 6_000 })),
        }),
        { maxLength: 2 },
      ),
      horizonMs: fc.constant(HORIZON),
      quietMs: fc.constant(QUIET),
      seed: fc.integer(),
    });
  })
  .map((s) => ({
    ...s,
    // Faults end by the horizon, so the quiet period is really quiet.
    pauses: s.pauses.map((p) => ({ ...p, duration: Math.min(p.duration, HORIZON - p.at) })),
    delays: s.delays.map((d) => ({ ...d, duration: Math.min(d.duration, HORIZON - d.at) })),
    apiErrors: s.apiErrors.map((e) => ({ ...e, duration: Math.min(e.duration, HORIZON - e.at) })),
  }));

/** The bound from docs/election.md for a schedule: [zero expected?, upper bound in ms]. */
export function leaseBound(s: ChaosSchedule): { zero: boolean; boundMs: number } {
  const rates = s.electors.map((e) => e.rate);
  const rMin = Math.min(...rates);
  const rMax = Math.max(...rates);
  const d = Math.max(0, ...s.delays.map((x) => x.responseDelayMs));
  const { leaseDurationMs: ld, renewDeadlineMs: rd, retryPeriodMs: rp } = s.timings;
  const leaderSide = d + (rp + rd) / rMin;
  return { zero: s.pauses.length === 0 && leaderSide < ld / rMax, boundMs: leaderSide };
}

describe('LeaderElector under chaos (property)', () => {
  it(`never lets two electors believe they lead past the lease bounds (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async (s) => {
        const result = await runChaos(s);
        const { zero, boundMs } = leaseBound(s);
        if (zero) expect(result.maxPairOverlapMs).toBe(0);
        else expect(result.maxPairOverlapMs).toBeLessThanOrEqual(boundMs + 1e-6);
        // Liveness after the faults stop: one leader, and it is the holder.
        expect(result.liveAtEnd).toBeGreaterThan(0);
        expect(result.leadersAtEnd).toHaveLength(1);
        expect(result.holderAtEnd).toBe(result.leadersAtEnd[0]);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 120_000);
});

describe('the bounds are tight enough to matter', () => {
  const quietSchedule = (patch: Partial<ChaosSchedule>): ChaosSchedule => ({
    timings: TIMINGS,
    electors: [
      { rate: 1, startAt: 0 },
      { rate: 1, startAt: 1_000 },
    ],
    crashes: [],
    pauses: [],
    apiErrors: [],
    delays: [],
    horizonMs: HORIZON,
    quietMs: QUIET,
    seed: 1,
    ...patch,
  });

  it('a leader frozen longer than the lease overlaps its successor, within D + (RP + RD)', async () => {
    const s = quietSchedule({ pauses: [{ slot: 0, at: 10_500, duration: 30_000 }] });
    const result = await runChaos(s);
    expect(result.maxPairOverlapMs).toBeGreaterThan(0);
    expect(result.maxPairOverlapMs).toBeLessThanOrEqual(leaseBound(s).boundMs);
  });

  it('a leader whose renewal answers arrive late overlaps, within the bound', async () => {
    const s = quietSchedule({
      delays: [{ slot: 0, at: 8_000, duration: 30_000, requestDelayMs: 0, responseDelayMs: 6_000 }],
    });
    const { zero, boundMs } = leaseBound(s);
    expect(zero).toBe(false);
    const result = await runChaos(s);
    expect(result.maxPairOverlapMs).toBeLessThanOrEqual(boundMs);
  });

  it('without faults the handover after a crash waits out the lease: no overlap', async () => {
    const s = quietSchedule({ crashes: [{ slot: 0, at: 20_000, downtime: 1_000 }] });
    const result = await runChaos(s);
    expect(result.maxPairOverlapMs).toBe(0);
    const node1 = result.segments.filter((x) => x.identity.startsWith('node-1'));
    expect(node1.length).toBeGreaterThan(0);
    // The successor starts no sooner than LD after the crash and no later than LD + 2 × RP × (1 + J).
    const gap = node1[0]!.from - 20_000;
    expect(gap).toBeGreaterThanOrEqual(TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs);
    expect(gap).toBeLessThanOrEqual(
      TIMINGS.leaseDurationMs + 2 * TIMINGS.retryPeriodMs * (1 + JITTER_FACTOR),
    );
  });
});
