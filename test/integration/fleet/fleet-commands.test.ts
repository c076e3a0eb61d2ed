import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMapJournalStore } from '../../../packages/uproot/src/adapters/kube/journal-store.js';
import { journalLocationFor } from '../../../packages/uproot/src/engine/journal/journal-location.js';
import { preflight } from '../../../packages/uproot/src/toolkit/preflight.js';
import { fleetMigrate, fleetPreflight } from '../../../packages/uproot/src/toolkit/fleet/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { startFleetHarness, type FleetHarness } from './harness.js';
import { KubeObjects } from '../../../packages/uproot/src/adapters/kube/kube-objects.js';
import { KubeClient } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { loadKubeConfig } from '../../../packages/uproot/src/adapters/kube/kubeconfig.js';

/**
 * The fleet commands against a fleet twin of five RKE2 clusters (three healthy, one missing its cluster tags,
 * one missing only the migration-lease RBAC its plan adds), each reached through Rancher's kubeconfig Secret.
 */
describe('uproot fleet over Rancher’s local cluster', () => {
  let h: FleetHarness;
  beforeAll(async () => {
    h = await startFleetHarness({ clusters: 5 });
  });
  afterAll(async () => h?.close());

  it('preflights every cluster into one table, failing on the one preflight refuses', async () => {
    const out = await h.cli(['fleet', 'preflight', '--aws-env-dir', h.targets.awsEnvDir, '-o', 'json']);
    expect(out.code, out.stderr).toBe(1);
    const rows = JSON.parse(out.stdout).rows as {
      cluster: string;
      type: string;
      outcome?: string;
      failedChecks?: string[];
      distro?: string;
      kubernetesVersion?: string;
    }[];
    expect(rows.map((r) => [r.cluster, r.outcome])).toEqual([
      ['fleet-default/downstream-01', 'warn'],
      ['fleet-default/downstream-02', 'warn'],
      ['fleet-default/downstream-03', 'warn'],
      ['fleet-default/downstream-04', 'fail'],
      ['fleet-default/downstream-05', 'fail'],
    ]);
    expect(rows[3]!.failedChecks).toContain('cluster-tags');
    expect(rows[4]!.failedChecks).toEqual(['migration-lease-rbac']);
    expect(rows[0]).toMatchObject({ distro: 'rke2', kubernetesVersion: 'v1.26.15+rke2r1' });
    const text = await h.cli([
      'fleet',
      'preflight',
      '--aws-env-dir',
      h.targets.awsEnvDir,
      '--selector',
      'env=prod',
    ]);
    expect(text.stdout).toMatch(/^CLUSTER\s+DISTRO\s+KUBERNETES\s+VERDICT\s+FAILING CHECKS$/m);
    expect(text.stdout.match(/^fleet-default\//gm)).toHaveLength(3); // 01, 03, 05
    const missing = await h.cli(['fleet', 'preflight', '--clusters', 'downstream-02,nowhere', '-o', 'json']);
    expect(
      JSON.parse(missing.stdout).rows.map((r: { cluster: string; type: string; code?: string }) => [
        r.cluster,
        r.code ?? r.type,
      ]),
    ).toEqual([
      ['fleet-default/nowhere', 'UP-CLUSTER-NOT-FOUND'],
      ['fleet-default/downstream-02', 'ran'],
    ]);
  });

  it('reads each cluster with as many requests as preflight of that cluster alone', async () => {
    const fleet = await fleetPreflight({ ...h.targets, clusters: 'downstream-01' }, h.host, {
      clock: h.clock,
    });
    const row = fleet.rows[0]!;
    expect(row.type).toBe('ran');
    const twin = h.fleet.member('downstream-01')!.twin;
    const alone = await preflight({
      kubeconfig: h.fleet.files.kubeconfig,
      context: 'downstream-01',
      rancherContext: 'rancher',
      cluster: 'downstream-01',
      env: { ...awsEnvironment(twin.aws) },
      clock: h.clock,
    });
    if (row.type !== 'ran') return;
    expect(row.report.stats.kubernetes.byCall).toEqual(alone.report.stats.kubernetes.byCall);
    expect(row.report.stats.aws.total).toBe(alone.report.stats.aws.total);
  });

  it('plans every cluster into its own directory with an index', async () => {
    const out = await h.cli(['fleet', 'plan', '--out', 'plans']);
    expect(out.code, out.stderr).toBe(0);
    const index = JSON.parse(readFileSync(join(h.dir, 'plans', 'index.json'), 'utf8'));
    expect(index.clusters).toHaveLength(5);
    expect(index.clusters.every((c: { type: string }) => c.type === 'planned')).toBe(true);
    expect(existsSync(join(h.dir, 'plans', 'fleet-default', 'downstream-03', 'plan.json'))).toBe(true);
    expect(readFileSync(join(h.dir, 'plans', 'INDEX.md'), 'utf8')).toContain(
      '[migrate](fleet-default/downstream-01/RUNBOOK.md)',
    );
  });

  it('two concurrent fleet migrations never migrate one cluster twice', async () => {
    const run = () =>
      fleetMigrate({ ...h.targets, parallel: 5, maxFailures: 5, yes: true, stateDir: 'state' }, h.host, {
        clock: h.clock,
      });
    const [a, b] = await Promise.all([run(), run()]);
    const management = new KubeObjects(
      KubeClient.fromKubeConfig(
        loadKubeConfig({ kubeconfig: h.fleet.files.kubeconfig, context: 'rancher' }),
        { clock: h.clock },
      ),
    );
    for (const name of ['downstream-01', 'downstream-02', 'downstream-03', 'downstream-05']) {
      const key = `fleet-default/${name}`;
      const outcomes = [a, b].map((r) => r.rows.find((row) => row.cluster === key)!.outcome.type).sort();
      // One run migrated it; the other found it locked (or, later, done).
      expect(outcomes, key).toContain('migrated');
      expect(
        outcomes.filter((o) => o === 'migrated'),
        key,
      ).toHaveLength(1);
      expect(['locked', 'already-completed']).toContain(outcomes.find((o) => o !== 'migrated'));
      const journal = await new ConfigMapJournalStore(
        management,
        journalLocationFor({ namespace: 'fleet-default', name }),
      ).load();
      expect(
        journal?.runs.filter((r) => r.command === 'migrate' && !r.resumed),
        key,
      ).toHaveLength(1);
      expect(journal?.steps.every((s) => s.state === 'verified')).toBe(true);
    }
    for (const r of [a, b]) {
      expect(r.rows.find((row) => row.cluster === 'fleet-default/downstream-04')!.outcome).toEqual({
        type: 'preflight-failed',
        failedChecks: expect.arrayContaining(['cluster-tags']),
      });
    }
    // The local journal copies, one per cluster.
    expect(existsSync(join(h.dir, 'state', 'downstream-01', 'journal.json'))).toBe(true);
  });

  it('shows each cluster’s verdict from its journal, and one report for the fleet', async () => {
    const status = await h.cli(['fleet', 'status', '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    const rows = JSON.parse(status.stdout).rows as { cluster: string; verdict: string }[];
    expect(Object.fromEntries(rows.map((r) => [r.cluster.split('/')[1], r.verdict]))).toEqual({
      'downstream-01': 'migrated',
      'downstream-02': 'migrated',
      'downstream-03': 'migrated',
      'downstream-04': 'not-started',
      'downstream-05': 'migrated',
    });
    const report = await h.cli(['fleet', 'report', '--out', 'report', '-o', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const model = JSON.parse(report.stdout);
    expect(model.totals).toMatchObject({ clusters: 5, completed: 4, maxOverlapSeconds: 0 });
    const html = readFileSync(join(h.dir, 'report', 'index.html'), 'utf8');
    expect(html).toContain('href="fleet-default/downstream-01.html"');
    expect(html).not.toMatch(/<script|https?:\/\//);
    expect(readFileSync(join(h.dir, 'report', 'fleet-default', 'downstream-05.html'), 'utf8')).toContain(
      'uproot migration report: downstream-05',
    );
  });
});
