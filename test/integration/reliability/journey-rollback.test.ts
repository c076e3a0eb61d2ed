/**
 * Kubernetes does not downgrade, so `uproot rollback` never crosses a step that changed the version: on the
 * rke2-intree twin, after a journey to 1.28, the CLI refuses with UP-ROLLBACK-ACROSS-UPGRADE and writes
 * nothing; stopped short of the hop, a rollback still undoes the steps after the switch (which moved the
 * cluster to 1.27), stops before the switch, and refuses when run again, writing nothing.
 */
import { describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import { RANCHER_NAMESPACE } from '../../../packages/sandbox/src/twin/rke2/provisioning-cluster.js';
import { CLUSTER_REF, startReliabilityTwin, type ReliabilityTwin } from './harness.js';

const TARGET = 'v1.28.15+rke2r1';

/** What a rollback could write: the journal and every other ConfigMap, the Cluster, the workloads, the RBAC. */
function written(twin: Twin): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const stores = { downstream: twin.downstream.store, management: twin.management!.store };
  for (const [api, store] of Object.entries(stores))
    for (const resource of [
      'v1/configmaps',
      'apps/v1/daemonsets',
      'rbac.authorization.k8s.io/v1/roles',
      'rbac.authorization.k8s.io/v1/clusterroles',
      ...(api === 'management' ? [CLUSTER_REF] : ['helm.cattle.io/v1/helmcharts']),
    ])
      for (const o of store.list(resource).items)
        out[`${api} ${resource} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`] =
          o.metadata?.resourceVersion;
  return out;
}

/** `uproot rollback` through the CLI, as a person runs it. */
async function cliRollback(sb: ReliabilityTwin, extra: string[] = []) {
  const { target } = sb;
  const io = recordingIo({ cwd: process.cwd(), env: { PATH: process.env.PATH } });
  const code = await runCli(
    [
      'rollback',
      '--kubeconfig',
      target.kubeconfig!,
      '--context',
      target.context!,
      '--rancher-context',
      target.rancherContext!,
      '--cluster',
      target.cluster!,
      '--yes',
      ...extra,
    ],
    io,
  );
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

function ccmLeaderMigration(twin: Twin): boolean {
  const cluster = twin.management!.store.mustGet(
    CLUSTER_REF,
    RANCHER_NAMESPACE,
    twin.scenario.clusterName,
  ) as {
    spec?: { rkeConfig?: { additionalManifest?: string } };
  };
  return /enable-leader-migration/.test(cluster.spec?.rkeConfig?.additionalManifest ?? '');
}

describe('uproot rollback after a journey on the rke2-intree twin', () => {
  it('after the hop to 1.28: refused through the CLI with UP-ROLLBACK-ACROSS-UPGRADE, nothing written', async () => {
    const sb = await startReliabilityTwin();
    try {
      const migrated = await sb.migrate({ targetVersion: TARGET });
      expect(migrated.exitCode, JSON.stringify(migrated.outcome).slice(0, 600)).toBe(0);
      const before = written(sb.twin);

      const dry = await cliRollback(sb, ['--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain('Nothing to undo.');
      expect(dry.stdout).toContain('Stops before upgrade-kubernetes-1.28');

      const refused = await cliRollback(sb);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('UP-ROLLBACK-ACROSS-UPGRADE');
      expect(refused.stderr).toMatch(
        /cannot roll back past upgrade-kubernetes-1\.28: .*Kubernetes v1\.28\.15\+rke2r1/,
      );
      expect(written(sb.twin)).toEqual(before);
      expect(sb.twin.status().apiServerVersion).toBe(TARGET);
    } finally {
      await sb.close();
    }
  }, 180_000);

  it('stopped before the hop: undoes the steps after the switch, stops before it, then refuses through the CLI writing nothing', async () => {
    const sb = await startReliabilityTwin();
    try {
      const migrated = await sb.migrate({ targetVersion: TARGET, until: 'verify-provider-ids' });
      expect(migrated.exitCode, JSON.stringify(migrated.outcome).slice(0, 600)).toBe(0);
      expect(ccmLeaderMigration(sb.twin)).toBe(false);

      const undone = await sb.rollback();
      const result = undone.outcome.type === 'ran' ? undone.outcome.result : undefined;
      expect(result, JSON.stringify(undone.outcome).slice(0, 600)).toMatchObject({
        type: 'stopped-at-upgrade',
        steps: ['verify-provider-ids', 'disable-leader-migration'],
        step: 'switch-to-external',
      });
      expect(undone.exitCode).toBe(1);
      // disable-leader-migration is undone: the CCM runs with leader migration again; the cluster stays on 1.27.
      expect(ccmLeaderMigration(sb.twin)).toBe(true);
      const kubelets = new Set(Object.values(sb.twin.status().versions.kubelets));
      expect(kubelets.size).toBe(1);
      expect([...kubelets][0]).toMatch(/^v1\.27\.16\+rke2r\d+$/);

      const before = written(sb.twin);
      const refused = await cliRollback(sb);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('UP-ROLLBACK-ACROSS-UPGRADE');
      expect(refused.stderr).toMatch(/cannot roll back past switch-to-external/);
      expect(written(sb.twin)).toEqual(before);
    } finally {
      await sb.close();
    }
  }, 180_000);
});
