/**
 * Issue 25 item 6: a pulse on long waits. The printer is pure over events and the run's clock, so virtual
 * time drives it here: a gate that waits 3 minutes on one unchanged condition.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../engine/events.js';
import type { Gate } from '../core/model/plan-types.js';
import { progressPrinter, waitedText } from './command-kit.js';

const gate = { type: 'nodes-initialized' } as unknown as Gate;
const T0 = Date.parse('2026-11-29T04:00:00Z');

/** A gate started at T0 and looked at every `pollMs` (the runner's backoff maximum, 15 s) for `forMs`. */
function waitEvents(pollMs: number, forMs: number): { at: number; event: EngineEvent }[] {
  const base = {
    step: 'install-ccm' as const,
    gate,
    reason: 'Updated=False: configuring node',
    timeoutMs: 3_600_000,
  };
  const out: { at: number; event: EngineEvent }[] = [
    { at: T0, event: { type: 'gate-started', step: 'install-ccm', gate, timeoutMs: 3_600_000 } },
    { at: T0 + 1_000, event: { type: 'gate-waiting', ...base, elapsedMs: 1_000 } },
  ];
  for (let t = 1_000 + pollMs; t <= forMs; t += pollMs) {
    out.push({ at: T0 + t, event: { type: 'gate-pulse', ...base, elapsedMs: t } });
  }
  return out;
}

function play(events: { at: number; event: EngineEvent }[], mode: { structured: boolean; live: boolean }) {
  let now = T0;
  const writes: { at: number; text: string }[] = [];
  const printer = progressPrinter((text) => writes.push({ at: now, text }), { now: () => now, ...mode });
  for (const e of events) {
    now = e.at;
    printer.onEvent(e.event);
  }
  printer.end();
  return writes;
}

describe('the pulse on long waits', () => {
  it('without a terminal: a timestamped "still waiting" line at least every 30 s of the run clock', () => {
    const writes = play(waitEvents(16_500, 180_000), { structured: false, live: false });
    const times = writes.map((w) => w.at);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(30_000);
    expect(times.at(-1)! - T0).toBeGreaterThan(150_000);
    const pulse = writes.find((w) => w.text.includes('still waiting'))!;
    expect(pulse.text).toMatch(
      /^ {6}2026-11-29T04:00:\d\d\.\d{3}Z still waiting \(\d+s of 1h00m\): Updated=False/,
    );
    // The condition itself is printed once, when it appears.
    expect(writes.filter((w) => w.text.includes('waiting: Updated=False'))).toHaveLength(1);
  });

  it('prints nothing extra while lines come often anyway', () => {
    const writes = play(waitEvents(1_000, 10_000), { structured: false, live: false });
    expect(writes.some((w) => w.text.includes('still waiting'))).toBe(false);
  });

  it('-o json: every event a JSON line with its time; pulses at the same pace', () => {
    const writes = play(waitEvents(16_500, 180_000), { structured: true, live: false });
    const docs = writes.map((w) => JSON.parse(w.text) as { at: string; type: string });
    expect(docs[0]).toMatchObject({ at: '2026-11-29T04:00:00.000Z', type: 'gate-started' });
    for (const doc of docs) expect(Date.parse(doc.at)).not.toBeNaN();
    const times = docs.map((d) => Date.parse(d.at));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(30_000);
    expect(docs.filter((d) => d.type === 'gate-pulse').length).toBeGreaterThan(3);
  });

  it('at a terminal: a live line with gate, elapsed of limit and condition, rewritten in place', () => {
    const writes = play(waitEvents(15_000, 120_000), { structured: false, live: true });
    const live = writes.filter((w) => w.text.startsWith('  … ') && !w.text.endsWith('\n'));
    expect(live.length).toBeGreaterThan(5);
    expect(live.at(-1)!.text).toContain(
      `${waitedText(106_000, 3_600_000)} — Updated=False: configuring node`,
    );
    // Each rewrite clears the previous one; the end leaves no live line behind.
    expect(writes.filter((w) => w.text === '\r\x1b[2K').length).toBe(live.length);
  });

  it('says elapsed time against the limit', () => {
    expect(waitedText(65_000, 600_000)).toBe('1m05s of 10m00s');
    expect(waitedText(5_000, undefined)).toBe('5s');
    expect(waitedText(3_900_000, 3_600_000)).toBe('1h05m of 1h00m');
  });
});
