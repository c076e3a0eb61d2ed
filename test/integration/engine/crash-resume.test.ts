import { afterEach, describe, expect, it } from 'vitest';
import type { KubeTransport } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { journalOf, run, sandbox, sandboxes } from './migrate-harness.js';
import { autoRollOut, endState } from './small-plan.js';

afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

class Crash extends Error {}

describe('uproot migrate, killed and resumed', () => {
  it('killed after any write (between steps or mid-step), resume ends where an uninterrupted run ends', async () => {
    const reference = await sandbox();
    autoRollOut(reference.server);
    let writes = 0;
    const counted = await run(
      reference,
      {},
      {
        wrap: (t) => async (req) => {
          const res = await t(req);
          if (req.method !== 'GET') writes++;
          return res;
        },
      },
    );
    expect(counted.exitCode).toBe(0);
    const expected = endState(reference.server);
    expect(writes).toBeGreaterThan(20);

    for (let crashAt = 1; crashAt <= writes; crashAt++) {
      const sb = await sandbox();
      autoRollOut(sb.server);
      let seen = 0;
      let dead = false;
      const crashing =
        (t: KubeTransport): KubeTransport =>
        async (req) => {
          if (dead) throw new Crash('the process is gone');
          const res = await t(req);
          if (req.method !== 'GET' && ++seen === crashAt) {
            dead = true; // the write landed; uproot dies before it sees the answer
            throw new Crash(`killed after write ${crashAt}: ${req.method} ${req.path}`);
          }
          return res;
        };
      await run(sb, {}, { wrap: crashing, attempts: 1 }).catch(() => undefined);
      expect(dead, `crash point ${crashAt}`).toBe(true);
      // The dead run's lock expires; the next run resumes (or starts, if nothing was journaled yet).
      await sb.clock.advanceBy(61_000);
      const journaled = (await journalOf(sb)) !== undefined;
      const resumed = await run(sb, journaled ? { resume: true } : {}, { runId: 'run-2' });
      expect(
        resumed.exitCode,
        `crash point ${crashAt}: ${JSON.stringify(resumed.outcome).slice(0, 300)}`,
      ).toBe(0);
      expect(endState(sb.server), `crash point ${crashAt}`).toEqual(expected);
      expect(
        (await journalOf(sb))!.steps.map((s) => s.state),
        `crash point ${crashAt}`,
      ).toEqual(['verified', 'verified', 'verified', 'verified']);
      await sb.close();
      sandboxes.splice(sandboxes.indexOf(sb), 1);
    }
  });
});
