import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';
import { builtinScenarioNames } from '../../../packages/sandbox/src/scenarios/index.js';

/**
 * Every scenario the twins ship, migrated the way `uproot demo` does it (virtual time): either the migration
 * completes and verify passes, or preflight refuses it with a failed check and nothing changes, or the cluster
 * already runs the external CCM (plan: nothing to do) and verify passes. Either way no controller ever runs in
 * two managers (the twin's ownership ledger is the ground truth).
 */
const scenarios = builtinScenarioNames().filter((name) => name !== 'empty');
/** The healthy layouts: preflight must let them through and the migration must complete. */
const MUST_MIGRATE = new Set([
  'rke2-intree',
  'rke-intree',
  'kubeadm-intree',
  'rke2-separate-pools',
  'rke2-user-strategy',
  'cloud-config-carried-over',
  'rke-rancher',
]);

describe('uproot demo on every scenario', () => {
  it.each(scenarios)(
    '%s: migrates with zero overlap, or preflight refuses it untouched',
    async (scenario) => {
      const dir = mkdtempSync(join(tmpdir(), `uproot-every-${scenario}-`));
      const progress: string[] = [];
      try {
        const result = await runDemo(
          { scenario, timeScale: 1, dir: join(dir, 'twin') },
          { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
          { instances: ec2Instances, virtualTime: true, onProgress: (l) => progress.push(l) },
        );
        const outcome = result.migration.outcome;
        const why = `${progress.join('\n')}\n${JSON.stringify(outcome).slice(0, 1500)}`;
        if (MUST_MIGRATE.has(scenario)) expect(outcome.type, why).toBe('ran');
        if (outcome.type === 'preflight-failed') {
          expect(result.preflight.checks.some((c) => c.status === 'fail')).toBe(true);
          expect(outcome.failures.length).toBeGreaterThan(0);
          expect(result.report, 'no journal: nothing was changed').toBeUndefined();
        } else if (outcome.type === 'nothing-to-do') {
          expect(outcome.reason, why).toMatch(/external/);
          expect(result.report, 'no journal: nothing was changed').toBeUndefined();
          expect(result.exitCode, why).toBe(0);
        } else {
          expect(outcome.type === 'ran' && outcome.result.type, why).toBe('completed');
          expect(
            result.verify.checks.filter((c) => c.status === 'fail'),
            why,
          ).toEqual([]);
          expect(result.exitCode).toBe(0);
        }
        for (const [name, c] of Object.entries(result.ledger.controllers))
          expect(c.overlapSeconds ?? 0, `${name} ran in two managers`).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
