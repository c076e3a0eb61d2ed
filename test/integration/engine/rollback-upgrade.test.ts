/**
 * Rollback stops before a step that changed the Kubernetes version, through the toolkit and the journal in its
 * ConfigMap: the small plan, with install-ccm declared as the step that moved the cluster to 1.27 (the engine
 * knows upgrades only from the plan's kubernetes.upgrades).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../packages/uproot/src/clock/index.js';
import type { MigrationPlan } from '../../../packages/uproot/src/core/model/plan-types.js';
import { UprootError } from '../../../packages/uproot/src/errors/index.js';
import { migrate } from '../../../packages/uproot/src/toolkit/migrate.js';
import { rollback } from '../../../packages/uproot/src/toolkit/rollback.js';
import { drive, type EngineSandbox } from './harness.js';
import { journalOf, sandbox, sandboxes } from './migrate-harness.js';
import { autoRollOut, smallPlan } from './small-plan.js';

afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

function journeyPlan(): MigrationPlan {
  const plan = smallPlan();
  return {
    ...plan,
    kubernetes: {
      current: 'v1.26.15',
      target: 'v1.27.16',
      upgrades: [{ step: 'install-ccm', version: 'v1.27.16', ccmTag: 'v1.27.6' }],
    },
  };
}

const host = (sb: EngineSandbox) => ({ cwd: sb.dir, env: {}, interactive: false });

function undo(sb: EngineSandbox, runId: string) {
  const objects = sb.objects();
  return drive(
    sb.clock,
    rollback({ yes: true, stateDir: join(sb.dir, '.uproot') }, host(sb), {
      clock: sb.clock,
      random: seededRandom(5),
      connect: () => ({ downstream: objects }),
      runId,
    }),
  );
}

describe('uproot rollback across an upgrade', () => {
  it('undoes the steps after the upgrade, then refuses to cross it, and refuses again without writing', async () => {
    const sb = await sandbox();
    autoRollOut(sb.server);
    const objects = sb.objects();
    const migrated = await drive(
      sb.clock,
      migrate({ yes: true, stateDir: join(sb.dir, '.uproot') }, host(sb), {
        clock: sb.clock,
        random: seededRandom(3),
        connect: () => ({ downstream: objects }),
        buildPlan: async () => journeyPlan(),
        preflight: async () => ({ outcome: 'pass', failures: [] }),
        runId: 'run-1',
      }),
    );
    expect(migrated.exitCode).toBe(0);
    const cordoned = () =>
      (['cp-1', 'cp-2', 'cp-3'] as const).map(
        (n) =>
          (sb.server.store.get('v1/nodes', undefined, n)?.spec as { unschedulable?: boolean }).unschedulable,
      );
    expect(cordoned()).toEqual([undefined, undefined, undefined]);

    const first = await undo(sb, 'rollback-1');
    expect(first.exitCode).toBe(1);
    const result = first.outcome.type === 'ran' ? first.outcome.result : undefined;
    expect(result).toMatchObject({
      type: 'stopped-at-upgrade',
      steps: ['roll-control-plane'],
      step: 'install-ccm',
    });
    // Undoing roll-control-plane's uncordon cordoned the control plane again; install-ccm stays.
    expect(cordoned()).toEqual([true, true, true]);
    expect(
      sb.server.store.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager'),
    ).toBeDefined();
    const journal = await journalOf(sb);
    expect(journal?.rollback?.stoppedAt).toBe('install-ccm');
    expect(journal?.steps.map((s) => s.state)).toEqual(['verified', 'verified', 'verified', 'rolled-back']);

    const again = await undo(sb, 'rollback-2').catch((e: unknown) => e);
    expect(UprootError.is(again) && again.code).toBe('UP-ROLLBACK-ACROSS-UPGRADE');
    expect(UprootError.is(again) && again.exitCode).toBe(2);
    expect((await journalOf(sb))?.revision).toBe(journal?.revision);
  });
});
