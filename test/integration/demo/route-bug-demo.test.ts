import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import { UprootError } from '../../../packages/uproot/src/errors/index.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';
import { plan } from '../../../packages/uproot/src/toolkit/plan.js';

/**
 * `uproot demo --scenario route-bug-release-refused`: a kubeadm control plane that runs the route controller,
 * migrated towards 1.34, whose aws-cloud-controller-manager releases cannot list routes
 * (kubernetes/cloud-provider-aws#1351). Preflight refuses before anything changes, route stays with the
 * in-tree KCMs, and the plan itself refuses the journey with a fix; one minor less is planned with route
 * moved to a CCM release that works.
 */
describe('demo: route bug release refused', () => {
  it('refuses the journey to 1.34, keeps route in the KCMs, and plans 1.33 with route in the CCM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-route-bug-'));
    let manifests = '';
    const plans: { refused?: string; hint?: string; routeMoves?: string; ccmArgs?: readonly string[] } = {};
    try {
      const result = await runDemo(
        { scenario: 'route-bug-release-refused', timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        {
          instances: ec2Instances,
          virtualTime: true,
          inspect: async (twin) => {
            const node = readdirSync(twin.files.nodes!)
              .sort()
              .find((n) =>
                existsSync(
                  join(twin.files.nodes!, n, 'etc/kubernetes/manifests/kube-controller-manager.yaml'),
                ),
              );
            manifests = join(twin.files.nodes!, node!, 'etc/kubernetes/manifests');
            try {
              await plan({ clusterFile: manifests, targetVersion: 'v1.34.1', cwd: dir });
            } catch (error) {
              if (!UprootError.is(error)) throw error;
              plans.refused = error.code;
              plans.hint = error.hint;
            }
            const ok = await plan({ clusterFile: manifests, targetVersion: 'v1.33.5', cwd: dir });
            plans.routeMoves = ok.plan.findings.find((f) => f.code === 'route-controller')?.message;
            plans.ccmArgs = ok.plan.decisions?.ccmArgs;
          },
        },
      );
      expect(result.migration.outcome.type).toBe('preflight-failed');
      const ccmRelease = result.preflight.checks.find((c) => c.id === 'ccm-release');
      expect(ccmRelease?.status).toBe('fail');
      expect(ccmRelease?.message).toMatch(/v1\.34\.3 .*cannot list routes.*#1351/);
      expect(result.report, 'no journal: nothing was changed').toBeUndefined();
      // The in-tree KCMs ran route all along, and nobody else did.
      expect(result.ledger.controllers.route?.state).toBe('running');
      expect(result.ledger.controllers.route?.overlapSeconds).toBe(0);
      expect(plans.refused).toBe('UP-PLAN-ROUTE-CCM-RELEASE');
      expect(plans.hint).toMatch(/stop the journey before 1\.34/);
      expect(plans.routeMoves).toMatch(/^route moves from kube-controller-manager to the CCM.*v1\.33\.4/);
      expect(plans.ccmArgs).toEqual([
        '--allocate-node-cidrs=true',
        '--cluster-cidr=10.244.0.0/16',
        '--configure-cloud-routes=true',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('without the journey, route moves to the CCM (v1.26.14) with the KCM flags, never in two managers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-route-moves-'));
    const file = join(dir, 'route-moves.yaml');
    writeFileSync(
      file,
      readFileSync('packages/sandbox/scenarios/route-bug-release-refused.yaml', 'utf8')
        .replace('name: route-bug-release-refused', 'name: route-moves')
        .replace(/migration:\n {2}targetVersion: v1\.34\.1\n/, ''),
    );
    let routeOwners: string[] = [];
    try {
      const result = await runDemo(
        { scenario: file, timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        {
          instances: ec2Instances,
          virtualTime: true,
          inspect: (twin) => {
            routeOwners = [
              ...new Set(
                twin.ledger.entries
                  .filter((e) => e.controller.includes('route') && e.action === 'started')
                  .map((e) => e.component),
              ),
            ];
          },
        },
      );
      const outcome = result.migration.outcome;
      expect(outcome.type === 'ran' && outcome.result.type, JSON.stringify(outcome).slice(0, 800)).toBe(
        'completed',
      );
      expect(routeOwners).toEqual(['kube-controller-manager', 'cloud-controller-manager']);
      expect(result.ledger.controllers.route?.overlapSeconds).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
