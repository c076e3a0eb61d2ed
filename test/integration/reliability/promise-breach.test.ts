import { describe, expect, it } from 'vitest';
import { startReliabilityTwin } from './harness.js';

describe('the promise gate stops a run whose controllers went without a leader past the bound', () => {
  it('KCM leases refused for 40 s while leader migration is enabled: promise-kept fails the step (exit 1), naming controller, figure, bound and step; status -o json carries each controller\u2019s figures; --accept-gap goes on', async () => {
    const sb = await startReliabilityTwin();
    try {
      const { twin, clock } = sb;
      // From the start of enable-leader-migration, the API refuses every lease request of the
      // kube-controller-manager for 40 simulated seconds (as an expired token would): its leader cannot renew
      // and no other can take over, so the controllers it runs go without a leader until the fault lifts.
      let fault: { hits(): number; remove(): void } | undefined;
      const result = await sb.migrate(
        { skipPreflight: true },
        {
          onEvent: (e) => {
            if (e.type === 'step-started' && e.step === 'enable-leader-migration' && !fault) {
              const added = twin.downstream.faults.add({
                match: { user: twin.identities.kcm.user, resource: 'leases' },
                action: { type: 'status', code: 403, message: 'leases is forbidden' },
              });
              fault = added;
              void clock.sleep(40_000).then(() => added.remove());
            }
          },
        },
      );
      expect(fault?.hits() ?? 0).toBeGreaterThan(0);
      const promiseGates = (result.outcome.type === 'ran' ? result.outcome.result.journal.steps : []).map(
        (s) => [s.id, 'gates' in s ? s.gates.find((g) => g.gate.type === 'promise-kept')?.result : undefined],
      );
      const timeline = result.outcome.type === 'ran' ? result.outcome.result.journal.leaseTimeline : [];
      expect(result.exitCode, JSON.stringify({ promiseGates, timeline }, null, 1)).toBe(1);
      const failed = result.outcome.type === 'ran' ? result.outcome.result : undefined;
      expect(failed?.type).toBe('gate-failed');
      if (failed?.type !== 'gate-failed') return;
      expect(failed.step).toBe('enable-leader-migration');
      expect(failed.gate).toEqual({ type: 'promise-kept' });
      expect(failed.result.type).toBe('failed');
      const reason = failed.result.type === 'failed' ? failed.result.reason : '';
      // The controller, the figure, the bound and the step.
      expect(reason).toMatch(/during step enable-leader-migration/);
      expect(reason).toMatch(
        /(service|route|cloud-node-lifecycle|nodeipam|cloud-node) had no leader for (\d+(\.\d+)?) s .* past its bound of 20 s/,
      );
      const figure = Number(/had no leader for (\d+(?:\.\d+)?) s/.exec(reason)?.[1]);
      expect(figure).toBeGreaterThan(20);
      expect(failed.result.fix).toContain('uproot migrate --resume --accept-gap');
      const record = failed.journal.steps.find((s) => s.id === 'enable-leader-migration');
      expect(record?.state === 'failed' && record.code).toBe('UP-GATE-PROMISE-KEPT');

      // status -o json: every followed controller with its figures, from the journal's lease observations.
      const report = await sb.status();
      const json = JSON.parse(JSON.stringify(report)) as typeof report;
      const ran = json.controllers.flatMap((c) => (c.state === 'running' ? [c] : []));
      expect(ran.map((c) => c.name)).toEqual(expect.arrayContaining(['service', 'cloud-node-lifecycle']));
      for (const c of ran) {
        expect(typeof c.overlapSeconds).toBe('number');
        expect(typeof c.maxGapSeconds).toBe('number');
        expect(c.boundSeconds).toBe(20);
      }
      expect(Math.max(...ran.map((c) => c.maxGapSeconds))).toBeGreaterThan(20);
      const ledger = twin.ledgerReport().controllers;
      // The figures next to the twin's ground truth, for the record (a gap is measured from the last
      // renewal, so it may exceed the ledger's by up to one retry period plus a look).
      console.log(
        'promise figures vs ledger:',
        JSON.stringify(
          ran.map((c) => ({
            controller: c.name,
            status: [c.overlapSeconds, c.maxGapSeconds],
            ledger: [ledger[c.name]?.overlapSeconds, ledger[c.name]?.maxGapSeconds],
          })),
        ),
      );

      // The figures agree with the ledger's ground truth: the overlap exactly, the gap within RetryPeriod/2
      // (1 s; the lease figure reads the handover from the middle of the old holder's last RetryPeriod), plus
      // 1 ms because each figure is rounded to the millisecond on its own.
      for (const name of ['service', 'cloud-node-lifecycle']) {
        const c = ran.find((x) => x.name === name);
        expect(c?.overlapSeconds).toBe(ledger[name]?.overlapSeconds);
        const truth = ledger[name]?.maxGapSeconds ?? 0;
        expect(truth, `${name}: the ledger sees the gap too`).toBeGreaterThan(20);
        expect(Math.round(Math.abs((c?.maxGapSeconds ?? 0) - truth) * 1000)).toBeLessThanOrEqual(1001);
      }

      // A person looked at it: --accept-gap lets the recorded breach pass, and the step verifies.
      await sb.migrate({ resume: true, acceptGap: true, skipPreflight: true });
      const verified = sb.events.flatMap((e) => (e.type === 'step-verified' ? [e.step] : []));
      expect(verified).toContain('enable-leader-migration');
    } finally {
      await sb.close();
    }
  }, 600_000);
});
