import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../packages/uproot/src/clock/index.js';
import type { KubeTransport } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import {
  rollback,
  type RollbackOptions,
  type RollbackRunResult,
} from '../../../packages/uproot/src/toolkit/rollback.js';
import { drive, type EngineSandbox } from './harness.js';
import { journalOf, run, sandbox, sandboxes } from './migrate-harness.js';
import { autoRollOut, endState } from './small-plan.js';

afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

function undo(
  sb: EngineSandbox,
  options: Partial<RollbackOptions> = {},
  extra: { wrap?: (t: KubeTransport) => KubeTransport; runId?: string } = {},
): Promise<RollbackRunResult> {
  const objects = sb.objects(extra.wrap, extra.wrap ? { attempts: 1 } : {});
  return drive(
    sb.clock,
    rollback(
      { yes: true, stateDir: join(sb.dir, '.uproot'), ...options },
      { cwd: sb.dir, env: {}, interactive: false },
      {
        clock: sb.clock,
        random: seededRandom(5),
        connect: () => ({ downstream: objects }),
        runId: extra.runId ?? 'rollback-1',
      },
    ),
  );
}

const KCM_ROLE = [
  'rbac.authorization.k8s.io/v1/roles',
  'kube-system',
  'system::leader-locking-kube-controller-manager',
] as const;

describe('uproot rollback against the sandbox API server', () => {
  it('undoes every step last first behind gates, back to the state before, keeping edits made since', async () => {
    const sb = await sandbox();
    autoRollOut(sb.server);
    const before = endState(sb.server);
    expect((await run(sb)).exitCode).toBe(0);

    // Meanwhile, a person adds a rule of their own to the role uproot patched.
    const role = structuredClone(sb.server.store.get(...KCM_ROLE)!);
    const extraRule = { apiGroups: [''], resources: ['events'], verbs: ['create'] };
    sb.server.store.update(
      KCM_ROLE[0],
      { ...role, rules: [...(role.rules as unknown[]), extraRule] },
      { namespace: 'kube-system', name: KCM_ROLE[2] },
    );

    const result = await undo(sb);
    expect(result.exitCode).toBe(0);
    expect(result.outcome).toMatchObject({
      type: 'ran',
      result: {
        type: 'rolled-back',
        steps: ['roll-control-plane', 'install-ccm', 'cordon-control-plane', 'grant-migration-lease'],
      },
    });
    const after = endState(sb.server) as { role: unknown[] };
    expect(after.role).toEqual([...(before as { role: unknown[] }).role, extraRule]);
    expect({ ...after, role: undefined }).toEqual({ ...(before as object), role: undefined });
    const journal = (await journalOf(sb))!;
    expect(journal.steps.map((s) => s.state)).toEqual([
      'rolled-back',
      'rolled-back',
      'rolled-back',
      'rolled-back',
    ]);
    expect(journal.rollback?.completedAt).toBeDefined();
    // Each undo was proven by the gates that held before its step, except cordoning (transient between undos).
    const gatesOf = (i: number) => {
      const step = journal.steps[i]!;
      return step.state === 'rolled-back' ? step.gates.map((g) => [g.gate.type, g.result.type]) : undefined;
    };
    expect(gatesOf(2)).toEqual([]);
    const proven = gatesOf(1)!;
    expect(proven.length).toBeGreaterThan(0);
    expect(proven.every(([, result]) => result === 'passed')).toBe(true);

    // Running it again finds nothing left to do; a new migration may start afresh.
    expect((await undo(sb, {}, { runId: 'rollback-2' })).outcome.type).toBe('already-rolled-back');
    expect((await run(sb, {}, { runId: 'run-3' })).exitCode).toBe(0);
  });

  it('rolls back a migration stopped half way (a failed gate), from the journal', async () => {
    const sb = await sandbox();
    const before = endState(sb.server);
    const first = await run(sb); // no DaemonSet controller: install-ccm times out
    expect(first.exitCode).toBe(1);
    const result = await undo(sb);
    expect(result.exitCode).toBe(0);
    expect(endState(sb.server)).toEqual(before);
  });

  it('keeps a rule a person rewrote after uproot added it (list edits merge as sets)', async () => {
    const sb = await sandbox();
    autoRollOut(sb.server);
    const before = endState(sb.server);
    expect((await run(sb, { until: 'grant-migration-lease' })).exitCode).toBe(0);
    // A person rewrites the very rule uproot added.
    const role = structuredClone(sb.server.store.get(...KCM_ROLE)!);
    const rules = role.rules as { verbs: string[] }[];
    rules[rules.length - 1]!.verbs = ['get'];
    sb.server.store.update(KCM_ROLE[0], role, { namespace: 'kube-system', name: KCM_ROLE[2] });
    // The rules list changed since: uproot removes only its own rule (gone already) and keeps the person's.
    const result = await undo(sb);
    expect(result.exitCode).toBe(0);
    expect((endState(sb.server) as { role: unknown[] }).role).toHaveLength(
      (before as { role: unknown[] }).role.length + 1,
    );
  });

  it('killed after any write, running rollback again finishes it', async () => {
    const reference = await sandbox();
    autoRollOut(reference.server);
    const initial = endState(reference.server);
    await run(reference);
    let writes = 0;
    await undo(
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
    expect(endState(reference.server)).toEqual(initial);

    for (let crashAt = 1; crashAt <= writes; crashAt++) {
      const sb = await sandbox();
      autoRollOut(sb.server);
      await run(sb);
      let seen = 0;
      let dead = false;
      const crashing =
        (t: KubeTransport): KubeTransport =>
        async (req) => {
          if (dead) throw new Error('the process is gone');
          const res = await t(req);
          if (req.method !== 'GET' && ++seen === crashAt) {
            dead = true;
            throw new Error(`killed after write ${crashAt}`);
          }
          return res;
        };
      await undo(sb, {}, { wrap: crashing }).catch(() => undefined);
      await sb.clock.advanceBy(61_000);
      const again = await undo(sb, {}, { runId: 'rollback-2' });
      expect(again.exitCode, `crash point ${crashAt}: ${JSON.stringify(again.outcome).slice(0, 300)}`).toBe(
        0,
      );
      expect(endState(sb.server), `crash point ${crashAt}`).toEqual(initial);
      await sb.close();
      sandboxes.splice(sandboxes.indexOf(sb), 1);
    }
  });
});
