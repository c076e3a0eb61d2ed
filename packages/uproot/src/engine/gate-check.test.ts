import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/index.js';
import type { Gate } from '../core/model/plan-types.js';
import { GateError } from '../errors/index.js';
import type { EngineEvent } from './events.js';
import { checkGate, type GateCheckActions, type GateRun } from './gate-check.js';
import type { GateRecord, Journal } from './journal/journal-schema.js';
import { isAbort } from './run-plan.js';
import { journalFor, plan, step } from './testing/plan-fixtures.js';

const GATE: Gate = { type: 'nodes-initialized', timeoutSeconds: 60 };
const STEP = step('verify-provider-ids', [], [GATE]);
const JOURNAL = journalFor(plan([STEP]));
const OBSERVATION = {
  namespace: 'kube-system',
  name: 'cloud-provider-extraction-migration',
  holder: 'ccm-1',
  observedAt: '2026-01-01T00:00:05.000Z',
};

function harness(run: (clock: VirtualClock) => Promise<GateRun>) {
  const clock = new VirtualClock();
  const log: string[] = [];
  const events: EngineEvent[] = [];
  const actions: GateCheckActions = {
    clock,
    runGate: async () => {
      log.push('run');
      return run(clock);
    },
    notify: (event) => {
      log.push(`notify ${event.type}`);
      events.push(event);
    },
  };
  const records: GateRecord[] = [];
  const record = (journal: Journal, r: GateRecord): Journal => {
    log.push('record');
    records.push(r);
    return journal;
  };
  return { clock, log, events, actions, records, record };
}

describe('checkGate', () => {
  it('times the gate, adds its lease observations, records it, then reports it', async () => {
    const h = harness(async (clock) => {
      await clock.advanceBy(5000);
      return { result: { type: 'passed', after: 5000 }, observations: [OBSERVATION] };
    });
    const checked = await checkGate({ step: STEP, gate: GATE, journal: JOURNAL }, h.actions, {
      signal: undefined,
      isAbort: () => false,
      record: h.record,
    });
    expect(checked.type).toBe('checked');
    if (checked.type !== 'checked') return;
    expect(checked.journal.leaseTimeline).toContainEqual(OBSERVATION);
    expect(h.records).toEqual([
      {
        gate: GATE,
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:05.000Z',
        result: checked.result,
      },
    ]);
    expect(h.log).toEqual(['run', 'record', 'notify gate-finished']);
  });

  it('does not start a gate once the run is aborted', async () => {
    const h = harness(async (): Promise<GateRun> => ({ result: { type: 'passed', after: 0 } }));
    const controller = new AbortController();
    controller.abort();
    const checked = await checkGate({ step: STEP, gate: GATE, journal: JOURNAL }, h.actions, {
      signal: controller.signal,
      isAbort: () => true,
      record: h.record,
    });
    expect(checked).toEqual({ type: 'interrupted' });
    expect(h.log).toEqual([]);
  });

  it('turns an abort during the gate into an interruption and rethrows anything else', async () => {
    const controller = new AbortController();
    const aborting = harness(async () => {
      controller.abort();
      throw controller.signal.reason;
    });
    const how = { signal: controller.signal, isAbort: (e: unknown) => isAbort(e, controller.signal) };
    await expect(
      checkGate({ step: STEP, gate: GATE, journal: JOURNAL }, aborting.actions, {
        ...how,
        record: aborting.record,
      }),
    ).resolves.toEqual({ type: 'interrupted' });
    expect(aborting.records).toEqual([]);

    const failing = harness(async () => {
      throw new GateError('UP-TEST-GATE', 'the gate reader broke');
    });
    await expect(
      checkGate({ step: STEP, gate: GATE, journal: JOURNAL }, failing.actions, {
        signal: undefined,
        isAbort: () => false,
        record: failing.record,
      }),
    ).rejects.toThrow('the gate reader broke');
    expect(failing.events).toEqual([]);
  });
});
