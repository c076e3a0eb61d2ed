import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/index.js';
import type { Change, MigrationPlan, PlanStep } from '../core/model/plan-types.js';
import { GateError } from '../errors/index.js';
import type { Journal } from './journal/journal-schema.js';
import { runPlan, type ChangeOutcome, type EngineActions } from './run-plan.js';
import { configMapPatch, cordon, journalFor, manual, plan, step } from './testing/plan-fixtures.js';

class Crash extends Error {}

/** A tiny cluster: config maps and nodes. Changes are idempotent, as the real transformations are. */
class World {
  readonly maps = new Map<string, Record<string, string>>();
  readonly nodes = new Map<string, boolean>([
    ['cp-1', false],
    ['cp-2', false],
  ]);
  readonly effects: string[] = [];
  apply(change: Change): ChangeOutcome {
    if (change.type === 'patch-object') {
      const map = { ...(this.maps.get(change.target.name) ?? {}) };
      const data = (change.patch as { data: Record<string, string> }).data;
      const changed = Object.entries(data).some(([k, v]) => map[k] !== v);
      this.maps.set(change.target.name, { ...map, ...data });
      if (changed) this.effects.push(change.description);
      return { type: 'done', record: { outcome: changed ? 'changed' : 'unchanged' } };
    }
    if (change.type === 'cordon-nodes') {
      const flipped = [...this.nodes].filter(([, u]) => !u).map(([n]) => n);
      for (const n of flipped) this.nodes.set(n, true);
      if (flipped.length) this.effects.push(change.description);
      return { type: 'done', record: { outcome: flipped.length ? 'changed' : 'unchanged', nodes: flipped } };
    }
    throw new Error(`the test world cannot apply ${change.type}`);
  }
  holds(s: PlanStep): boolean {
    return s.changes.every((c) =>
      c.type === 'patch-object'
        ? Object.entries((c.patch as { data: Record<string, string> }).data).every(
            ([k, v]) => this.maps.get(c.target.name)?.[k] === v,
          )
        : c.type === 'cordon-nodes'
          ? [...this.nodes.values()].every(Boolean)
          : true,
    );
  }
  snapshot(): unknown {
    return { maps: Object.fromEntries(this.maps), nodes: Object.fromEntries(this.nodes) };
  }
}

interface Harness {
  actions: EngineActions;
  log: string[];
  persisted: () => Journal | undefined;
}

/**
 * Recording actions. `crashAt` kills the "process" at the n-th crash point (a journal save, or just after a
 * change reached the world but before it was journaled); after that every action throws.
 */
function harness(
  world: World,
  options: { crashAt?: number; failGate?: (s: PlanStep) => boolean; confirmed?: boolean } = {},
): Harness {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const log: string[] = [];
  let points = 0;
  let dead = false;
  let saved: Journal | undefined;
  const point = (): void => {
    if (dead) throw new Crash('dead');
    points++;
    if (options.crashAt === points) {
      dead = true;
      throw new Crash(`crash at point ${points}`);
    }
  };
  const actions: EngineActions = {
    clock,
    captureBackups: async (s, indexes) => {
      if (dead) throw new Crash('dead');
      log.push(`backup ${s.id} ${indexes.join(',')}`);
      return indexes.map((i) => ({ change: i, backup: { type: 'none' as const, reason: 'test' } }));
    },
    applyChange: async ({ step: s, change, index }) => {
      if (dead) throw new Crash('dead');
      log.push(`apply ${s.id}#${index}`);
      if (change.type === 'manual') {
        return options.confirmed
          ? { type: 'done', record: { outcome: 'confirmed' } }
          : { type: 'needs-person', instructions: change.instructions };
      }
      const outcome = world.apply(change);
      point();
      return outcome;
    },
    runGate: async ({ step: s, gate }) => {
      if (dead) throw new Crash('dead');
      log.push(`gate ${s.id} ${gate.type} ${world.holds(s) ? 'holds' : 'BROKEN'}`);
      if (options.failGate?.(s)) return { result: { type: 'timed-out', last: 'not yet', fix: 'wait' } };
      return { result: { type: 'passed', after: 0 } };
    },
    saveJournal: async (j) => {
      point();
      saved = { ...j, revision: j.revision + 1 };
      return saved;
    },
  };
  return { actions, log, persisted: () => saved };
}

const threeSteps: MigrationPlan = plan([
  step(
    'grant-migration-lease',
    [configMapPatch('rbac', 'granted', 'yes')],
    [
      {
        type: 'rbac-allows',
        user: 'u',
        verbs: ['get'],
        resource: 'leases',
        namespace: 'kube-system',
        resourceName: 'm',
        timeoutSeconds: 5,
      },
    ],
  ),
  step('cordon-control-plane', [cordon()], [{ type: 'nodes-cordoned', selector: 'x', timeoutSeconds: 5 }]),
  step(
    'install-ccm',
    [configMapPatch('ccm', 'installed', 'yes'), configMapPatch('ccm', 'args', '--enable-leader-migration')],
    [{ type: 'daemonset-rolled-out', namespace: 'kube-system', name: 'ccm', timeoutSeconds: 5 }],
  ),
]);

describe('runPlan', () => {
  it('applies every step, journals intent before each change, and verifies before moving on', async () => {
    const world = new World();
    const h = harness(world);
    const result = await runPlan(threeSteps, journalFor(threeSteps), h.actions);
    expect(result.type).toBe('completed');
    expect(result.journal.steps.map((s) => s.state)).toEqual(['verified', 'verified', 'verified']);
    expect(h.log).toEqual([
      'backup grant-migration-lease 0',
      'apply grant-migration-lease#0',
      'gate grant-migration-lease rbac-allows holds',
      'backup cordon-control-plane 0',
      'apply cordon-control-plane#0',
      'gate cordon-control-plane nodes-cordoned holds',
      'backup install-ccm 0,1',
      'apply install-ccm#0',
      'apply install-ccm#1',
      'gate install-ccm daemonset-rolled-out holds',
    ]);
    const cordonRecord = result.journal.steps[1]!;
    expect(cordonRecord.state === 'verified' && cordonRecord.changes[0]?.nodes).toEqual(['cp-1', 'cp-2']);
  });

  it('stops at --until once that step is verified', async () => {
    const h = harness(new World());
    const result = await runPlan(threeSteps, journalFor(threeSteps), h.actions, {
      until: 'cordon-control-plane',
    });
    expect(result).toMatchObject({ type: 'stopped', after: 'cordon-control-plane' });
    expect(result.journal.steps.map((s) => s.state)).toEqual(['verified', 'verified', 'pending']);
  });

  it('stops on a failed gate with the step failed in the verify phase, and resume re-verifies without re-applying', async () => {
    const world = new World();
    const failing = harness(world, { failGate: (s) => s.id === 'cordon-control-plane' });
    const first = await runPlan(threeSteps, journalFor(threeSteps), failing.actions);
    expect(first).toMatchObject({ type: 'gate-failed', step: 'cordon-control-plane' });
    expect(first.journal.steps[1]).toMatchObject({
      state: 'failed',
      phase: 'verify',
      reason: 'timed out: not yet',
    });
    expect(failing.log).not.toContain('apply install-ccm#0');

    const again = harness(world);
    const second = await runPlan(threeSteps, first.journal, again.actions);
    expect(second.type).toBe('completed');
    expect(again.log[0]).toBe('gate cordon-control-plane nodes-cordoned holds');
    expect(again.log.filter((l) => l.startsWith('apply cordon'))).toEqual([]);
  });

  it('records an apply failure and keeps the backups for the retry', async () => {
    const world = new World();
    const h = harness(world);
    let calls = 0;
    const failingOnce: EngineActions = {
      ...h.actions,
      applyChange: async (input) => {
        if (input.step.id === 'install-ccm' && input.index === 1 && calls++ === 0) {
          throw new GateError('UP-TEST', 'conflict retries exhausted', { hint: 'try again' });
        }
        return h.actions.applyChange(input);
      },
    };
    const first = await runPlan(threeSteps, journalFor(threeSteps), failingOnce);
    expect(first).toMatchObject({ type: 'apply-failed', step: 'install-ccm' });
    const failed = first.journal.steps[2]!;
    expect(failed).toMatchObject({ state: 'failed', phase: 'apply', code: 'UP-TEST', fix: 'try again' });
    expect(failed.state === 'failed' && failed.changes.map((c) => c.change)).toEqual([0]);

    const resumed = harness(world);
    const second = await runPlan(threeSteps, first.journal, resumed.actions);
    expect(second.type).toBe('completed');
    // Backups were kept; only change #1 ran again.
    expect(resumed.log).toEqual(['apply install-ccm#1', 'gate install-ccm daemonset-rolled-out holds']);
  });

  it('waits for a person on a manual change and continues once it is confirmed', async () => {
    const p = plan([step('roll-control-plane', [manual('replace each control-plane node')])]);
    const h = harness(new World());
    const first = await runPlan(p, journalFor(p), h.actions);
    expect(first).toMatchObject({
      type: 'waiting-for-person',
      instructions: 'replace each control-plane node',
    });
    expect(first.journal.steps[0]!.state).toBe('applying');
    const second = await runPlan(p, first.journal, harness(new World(), { confirmed: true }).actions);
    expect(second.type).toBe('completed');
  });

  it('stops cleanly when interrupted and leaves a resumable journal', async () => {
    const controller = new AbortController();
    const h = harness(new World());
    const actions: EngineActions = {
      ...h.actions,
      runGate: async (input) => {
        controller.abort(new Error('interrupted'));
        return h.actions.runGate(input);
      },
    };
    const result = await runPlan(threeSteps, journalFor(threeSteps), actions, { signal: controller.signal });
    expect(result).toMatchObject({ type: 'interrupted', step: 'cordon-control-plane' });
    expect(result.journal.steps[0]!.state).toBe('verified');
  });

  it('never redoes a recorded change nor skips an unverified step, whatever point it crashed at', async () => {
    const reference = new World();
    const refHarness = harness(reference);
    await runPlan(threeSteps, journalFor(threeSteps), refHarness.actions);
    const points = await countPoints(threeSteps);
    expect(points).toBeGreaterThan(15);
    for (let crashAt = 1; crashAt <= points; crashAt++) {
      const world = new World();
      const first = harness(world, { crashAt });
      await expect(runPlan(threeSteps, journalFor(threeSteps), first.actions)).rejects.toBeInstanceOf(Crash);
      const persisted = first.persisted() ?? journalFor(threeSteps);
      const second = harness(world);
      const result = await runPlan(threeSteps, persisted, second.actions);
      expect(result.type, `crash at ${crashAt}`).toBe('completed');
      expect(world.snapshot(), `crash at ${crashAt}`).toEqual(reference.snapshot());
      // Each effect happened exactly once.
      expect(world.effects, `crash at ${crashAt}`).toEqual(reference.effects);
      // Changes journaled as done were not applied again.
      for (const record of persisted.steps) {
        if (record.state === 'pending') continue;
        for (const done of record.changes) {
          expect(second.log, `crash at ${crashAt}`).not.toContain(`apply ${record.id}#${done.change}`);
        }
      }
      // Every step not verified before the crash was verified after it, with its change in place.
      for (const record of persisted.steps.filter((s) => s.state !== 'verified')) {
        expect(second.log.some((l) => l.startsWith(`gate ${record.id}`) && l.endsWith('holds'))).toBe(true);
      }
      expect(second.log.some((l) => l.endsWith('BROKEN'))).toBe(false);
    }
  });
});

async function countPoints(p: MigrationPlan): Promise<number> {
  let count = 0;
  const world = new World();
  const h = harness(world);
  const actions: EngineActions = {
    ...h.actions,
    applyChange: async (input) => {
      count++;
      return h.actions.applyChange(input);
    },
    saveJournal: async (j) => {
      count++;
      return h.actions.saveJournal(j);
    },
  };
  await runPlan(p, journalFor(p), actions);
  return count;
}
