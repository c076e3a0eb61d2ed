import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';
import { loadScenario } from '../../../packages/sandbox/src/scenarios/index.js';

/**
 * uproot under the user's own rolling strategy (issue 28, item 5): scenario rke2-user-strategy has
 * controlPlaneConcurrency "2", workerConcurrency "50%" and drain on. uproot keeps the values (plan finding
 * user-rolling-concurrency says why the bound holds); the twin's Rancher rolls both control-plane machines
 * together and drains them, and the migration still ends verified, with zero overlap, every gap within 20 s,
 * and the user's upgradeStrategy as it was.
 */
describe('uproot demo under the user\u2019s upgrade strategy', () => {
  it('keeps controlPlaneConcurrency "2" and drain, and the promise holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-user-strategy-'));
    const twinLog: string[] = [];
    const progress: string[] = [];
    let strategyAtEnd: unknown;
    let cordonedAtEnd: string[] = [];
    try {
      const result = await runDemo(
        { scenario: 'rke2-user-strategy', timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        {
          instances: ec2Instances,
          virtualTime: true,
          onProgress: (l) => progress.push(l),
          twinLog: (l) => twinLog.push(l),
          inspect: (twin) => {
            // No node is left unschedulable: uproot lifts its own cordon (Rancher lifts only a drain's).
            cordonedAtEnd = twin.downstream.store
              .list('v1/nodes')
              .items.filter((n) => (n.spec as { unschedulable?: boolean } | undefined)?.unschedulable)
              .map((n) => n.metadata?.name ?? '');
            const cluster = twin.management?.store.get(
              'provisioning.cattle.io/v1/clusters',
              'fleet-default',
              'demo',
            );
            strategyAtEnd = (cluster?.spec as { rkeConfig?: { upgradeStrategy?: unknown } }).rkeConfig
              ?.upgradeStrategy;
          },
        },
      );
      const why = progress.join('\n');
      const outcome = result.migration.outcome;
      expect(outcome.type === 'ran' && outcome.result.type, why).toBe('completed');
      expect(result.exitCode, why).toBe(0);
      expect(result.verify.checks.filter((c) => c.status === 'fail')).toEqual([]);
      for (const [name, c] of Object.entries(result.ledger.controllers)) {
        expect(c.overlapSeconds ?? 0, `${name} ran in two managers`).toBe(0);
        expect(c.maxGapSeconds ?? 0, `${name}'s largest gap`).toBeLessThanOrEqual(20);
      }
      expect(cordonedAtEnd).toEqual([]);
      // The user's values, intact at the end.
      const { scenario } = loadScenario('rke2-user-strategy');
      expect(strategyAtEnd).toMatchObject(scenario.upgradeStrategy!);
      // What the twin did: both control-plane machines started a plan before either was applied, drained first.
      const cp = twinLog.filter((l) => /generation \d+: configuring control plane node\(s\) /.test(l));
      expect(cp.length).toBeGreaterThan(0);
      const together = twinLog.some((line, i) => {
        const first = /generation (\d+): configuring control plane node\(s\) (\S+)$/.exec(line);
        if (!first) return false;
        const rest = twinLog.slice(i + 1);
        const applied = rest.findIndex((l) => l.includes(`${first[2]} applied`));
        const other = rest.findIndex((l) =>
          new RegExp(`generation ${first[1]}: configuring control plane node\\(s\\) (?!${first[2]}$)`).test(
            l,
          ),
        );
        return other >= 0 && applied >= 0 && other < applied;
      });
      expect(together, cp.join('\n')).toBe(true);
      expect(twinLog.some((l) => /rke2 planner: drained control plane node /.test(l))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
