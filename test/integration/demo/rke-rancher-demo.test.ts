import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import type { EngineEvent } from '../../../packages/uproot/src/engine/events.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';
import { MANAGEMENT_CLUSTERS, rke1ClusterId } from '../../../packages/sandbox/src/twin/rke/rancher-rke1.js';

/**
 * `uproot demo --scenario rke-rancher`: a Rancher-managed RKE cluster is migrated by editing its
 * clusters.management.cattle.io object in the management cluster (no cluster.yml anywhere), each edit
 * written with the object's resourceVersion after a backup, and each followed by Rancher's `rke up`
 * (status.appliedSpec, condition Updated) before the next step starts.
 */
interface V3Cluster {
  spec: {
    rancherKubernetesEngineConfig: {
      cloudProvider: unknown;
      services?: { kubeController?: { extraArgs?: Record<string, string> } };
    };
  };
  status: {
    appliedSpec: { rancherKubernetesEngineConfig: unknown };
    conditions: unknown[];
    failedSpec?: unknown;
  };
}

describe('demo: Rancher-managed RKE', () => {
  it('migrates end to end through the v3 Cluster, waiting for Rancher after every edit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-rke-rancher-'));
    const events: EngineEvent[] = [];
    let final: V3Cluster | undefined;
    let wrapper: unknown;
    let rkeConfigFile: string | undefined;
    try {
      const result = await runDemo(
        { scenario: 'rke-rancher', timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        {
          instances: ec2Instances,
          virtualTime: true,
          onEvent: (e) => events.push(e),
          inspect: (twin) => {
            const kube = twin.management!.store;
            final = kube.get(MANAGEMENT_CLUSTERS, undefined, rke1ClusterId('demo')) as unknown as V3Cluster;
            wrapper = kube.get('provisioning.cattle.io/v1/clusters', 'fleet-default', rke1ClusterId('demo'));
            rkeConfigFile = twin.files.rkeConfig;
          },
        },
      );
      const outcome = result.migration.outcome;
      expect(outcome.type === 'ran' && outcome.result.type, JSON.stringify(outcome).slice(0, 800)).toBe(
        'completed',
      );
      expect(result.exitCode).toBe(0);
      expect(result.verify.checks.filter((c) => c.status === 'fail')).toEqual([]);
      for (const [name, c] of Object.entries(result.ledger.controllers))
        expect(c.overlapSeconds ?? 0, `${name} ran in two managers`).toBe(0);
      expect(rkeConfigFile, 'no cluster.yml: Rancher holds the options').toBeUndefined();
      expect(wrapper).toMatchObject({ status: { clusterName: rke1ClusterId('demo') } });
      // The v3 Cluster ends external, applied by Rancher.
      const rke = final!.spec.rancherKubernetesEngineConfig;
      expect(rke.cloudProvider).toEqual({ name: 'external-aws', useInstanceMetadataHostname: true });
      expect(rke.services?.kubeController?.extraArgs ?? {}).not.toHaveProperty('enable-leader-migration');
      expect(final!.status.appliedSpec.rancherKubernetesEngineConfig).toEqual(rke);
      expect(final!.status.conditions).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'Updated', status: 'True' })]),
      );
      expect(final!.status.failedSpec).toBeUndefined();
      // Each edit of the Cluster waited for Rancher: the rollout gate saw the spec not yet applied first.
      const text = JSON.stringify(events);
      expect(text).toMatch(/updated Cluster c-\w+ \(resourceVersion \d+\)/);
      expect(text).toMatch(/Rancher has not applied the change yet/);
      expect(text).toMatch(/Rancher applied the change to c-\w+/);
      // The plan read Rancher's version before the switch (settings.management.cattle.io/server-version).
      const findings =
        outcome.type === 'ran' && outcome.result.type === 'completed'
          ? outcome.result.journal.plan.findings
          : [];
      expect(findings.find((f) => f.code === 'rke-external-aws-version')?.message).toMatch(
        /Rancher v2\.8\.5 \(settings\.management\.cattle\.io\/server-version\) knows cloud_provider external-aws/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses before any change when Rancher is older than v2.7.11 (no external-aws)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-rke-rancher-old-'));
    const file = join(dir, 'old-rancher.yaml');
    writeFileSync(
      file,
      readFileSync('packages/sandbox/scenarios/rke-rancher.yaml', 'utf8')
        .replace('name: rke-rancher', 'name: old-rancher')
        .replace('managedBy: rancher', 'managedBy: rancher\n  rancherVersion: v2.7.5'),
    );
    try {
      await expect(
        runDemo(
          { scenario: file, timeScale: 1, dir: join(dir, 'twin') },
          { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
          { instances: ec2Instances, virtualTime: true },
        ),
      ).rejects.toMatchObject({
        code: 'UP-PLAN-RKE-EXTERNAL-AWS',
        message: expect.stringMatching(/Rancher v2\.7\.5 .* does not know cloud_provider external-aws/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
