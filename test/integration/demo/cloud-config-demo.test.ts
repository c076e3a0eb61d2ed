import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';

/**
 * `uproot demo --scenario cloud-config-carried-over`: the RKE cluster's awsCloudProvider names the cluster id
 * while its instances also carry an older cluster's tag. After the migration the CCM runs with the carried
 * setting (ConfigMap kube-system/aws-cloud-config, --cloud-config), so no cloud controller ever fails on the
 * two tags, and cluster.yml no longer has awsCloudProvider (RKE would stay in-tree with it).
 */
describe('demo: cloud config carried over', () => {
  it('migrates, and the CCM reads the carried KubernetesClusterID', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-cloud-config-'));
    const seen: { args: string[]; configMap: unknown; events: string[]; clusterYml: string } = {
      args: [],
      configMap: undefined,
      events: [],
      clusterYml: '',
    };
    try {
      const result = await runDemo(
        { scenario: 'cloud-config-carried-over', timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        {
          instances: ec2Instances,
          virtualTime: true,
          inspect: async (twin) => {
            const store = twin.downstream.store;
            const ds = store.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager') as {
              spec: { template: { spec: { containers: { args: string[] }[] } } };
            };
            seen.args = ds.spec.template.spec.containers[0]!.args;
            seen.configMap = store.get('v1/configmaps', 'kube-system', 'aws-cloud-config');
            seen.events = store
              .list('v1/events')
              .items.map((e) => String((e as { message?: string }).message));
            const { readFile } = await import('node:fs/promises');
            seen.clusterYml = await readFile(twin.files.rkeConfig!, 'utf8');
          },
        },
      );
      const outcome = result.migration.outcome;
      expect(outcome.type === 'ran' && outcome.result.type).toBe('completed');
      expect(result.exitCode).toBe(0);
      expect(seen.args).toContain('--cloud-config=/etc/kubernetes/aws-cloud-config/cloud.conf');
      expect(seen.configMap).toMatchObject({
        data: { 'cloud.conf': '[Global]\nKubernetesClusterID = demo\n' },
      });
      expect(seen.events.filter((m) => /Found multiple cluster tags/.test(m))).toEqual([]);
      expect(seen.clusterYml).toMatch(/name: external-aws/);
      expect(seen.clusterYml).not.toMatch(/awsCloudProvider/);
      for (const [name, c] of Object.entries(result.ledger.controllers))
        expect(c.overlapSeconds ?? 0, `${name} ran in two managers`).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
