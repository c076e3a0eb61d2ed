import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { installKubelet, type Twin } from '../../../packages/sandbox/src/twin/index.js';
import { helmChartManifest, seedCcmValues } from './seed-manifests.js';
import {
  advanceUntil,
  clusterRolledOut,
  kubeletVersions,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * The journey's point: once the cloud controllers live in the external CCM, a 1.27 control plane comes up on
 * every distribution. Each twin is switched to the external provider the short way (CCM first, then every
 * component to `external`), then upgraded to 1.27 as its distribution upgrades; every node ends Ready on
 * 1.27, nothing crash-loops, and `/version` says 1.27.
 */

function summary(twin: Twin): { ready: number; versions: string[]; failing: readonly unknown[] } {
  const nodes = twin.downstream.store.list('v1/nodes').items;
  return {
    ready: nodes.filter((n) =>
      ((n.status as { conditions?: { type: string; status: string }[] }).conditions ?? []).some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ),
    ).length,
    versions: [...new Set(Object.values(kubeletVersions(twin)))],
    failing: twin.status().failing,
  };
}

function kcmRunning(twin: Twin): string[] {
  return twin.nodes
    .all()
    .flatMap((a) => a.managers())
    .filter((m) => m.component === 'kube-controller-manager')
    .map((m) => m.state);
}

describe('a 1.27 control plane comes up after the switch', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('RKE2: external CCM through additionalManifest, cloud-provider-name external, then spec.kubernetesVersion', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock, { nodes: 4 });
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    const patch = async (spec: unknown) => {
      const r = await patchRancherCluster(h, spec);
      expect(r.code, r.stderr).toBe(0);
      await clock.advanceBy(1_000);
      await advanceUntil(clock, () => clusterRolledOut(twin), {
        stepMs: 2_000,
        describe: () => JSON.stringify(twin.status().cluster),
      });
    };
    const values = seedCcmValues({ roleLabel: 'control-plane', leaderMigration: false, imageTag: 'v1.27.7' });
    await patch({
      rkeConfig: {
        additionalManifest: helmChartManifest(values),
        machineGlobalConfig: { 'cloud-provider-name': 'external' },
      },
    });
    await patch({ kubernetesVersion: 'v1.27.16+rke2r1' });
    await clock.advanceBy(60_000);
    expect(summary(twin)).toEqual({ ready: 4, versions: ['v1.27.16+rke2r1'], failing: [] });
    expect(kcmRunning(twin)).toEqual(['running', 'running', 'running']);
    expect(twin.downstream.version.gitVersion).toBe('v1.27.16+rke2r1');
  }, 180_000);

  it('RKE: external-aws in cluster.yml with the CCM chart, then kubernetes_version, each by rke up', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke-intree', clock, { nodes: 4 });
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    const chart = stringify({
      apiVersion: 'helm.cattle.io/v1',
      kind: 'HelmChart',
      metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
      spec: {
        chart: 'aws-cloud-controller-manager',
        targetNamespace: 'kube-system',
        valuesContent: stringify(
          seedCcmValues({ roleLabel: 'controlplane', leaderMigration: false, imageTag: 'v1.27.7' }),
        ),
      },
    });
    expect((await h.kubectl(['apply', '-f', '-'], { input: chart })).code).toBe(0);
    const file = twin.files.rkeConfig!;
    const up = async (change: (doc: ReturnType<typeof parseDocument>) => void) => {
      const doc = parseDocument(readFileSync(file, 'utf8'));
      change(doc);
      writeFileSync(file, doc.toString());
      let result: Awaited<ReturnType<Twin['applyRkeConfig']>> | undefined;
      void twin.applyRkeConfig(doc.toString(), file).then((r) => (result = r));
      await advanceUntil(clock, () => result !== undefined, { stepMs: 2_000 });
      expect(result, JSON.stringify(result?.log)).toMatchObject({ ok: true });
    };
    await up((doc) => doc.setIn(['cloud_provider', 'name'], 'external-aws'));
    await up((doc) => doc.set('kubernetes_version', 'v1.27.16-rancher1-1'));
    await clock.advanceBy(60_000);
    expect(summary(twin)).toEqual({ ready: 4, versions: ['v1.27.16'], failing: [] });
    expect(kcmRunning(twin)).toEqual(['running', 'running', 'running']);
    expect(twin.downstream.version.gitVersion).toBe('v1.27.16');
  }, 180_000);

  it('kubeadm: every component to external with the CCM chart, then the 1.27 manifests and kubelet packages', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('kubeadm-intree', clock, { nodes: 4 });
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    const chart = helmChartManifest({ image: { tag: 'v1.27.7' } });
    expect((await h.kubectl(['apply', '-f', '-'], { input: chart })).code).toBe(0);
    const nodesDir = twin.files.nodes!;
    const machines = readdirSync(nodesDir);
    const editAll = (relative: string, edit: (text: string) => string) => {
      for (const m of machines) {
        const path = join(nodesDir, m, relative);
        try {
          writeFileSync(path, edit(readFileSync(path, 'utf8')));
        } catch {
          // workers have no manifests
        }
      }
    };
    editAll('var/lib/kubelet/kubeadm-flags.env', (t) =>
      t.replace('--cloud-provider=aws', '--cloud-provider=external'),
    );
    for (const c of ['kube-apiserver', 'kube-controller-manager'])
      editAll(`etc/kubernetes/manifests/${c}.yaml`, (t) =>
        t.replace('--cloud-provider=aws', '--cloud-provider=external'),
      );
    await clock.advanceBy(120_000);
    for (const c of ['kube-apiserver', 'kube-controller-manager'])
      editAll(`etc/kubernetes/manifests/${c}.yaml`, (t) => t.replace(`${c}:v1.26.15`, `${c}:v1.27.16`));
    for (const m of machines) installKubelet(nodesDir, m, 'v1.27.16');
    await advanceUntil(
      clock,
      () => summary(twin).versions.join() === 'v1.27.16' && summary(twin).ready === 4,
      {
        stepMs: 2_000,
        describe: () => JSON.stringify(summary(twin)),
      },
    );
    await clock.advanceBy(60_000);
    expect(summary(twin)).toEqual({ ready: 4, versions: ['v1.27.16'], failing: [] });
    expect(kcmRunning(twin)).toEqual(['running', 'running', 'running']);
    expect(twin.downstream.version.gitVersion).toBe('v1.27.16');
  }, 180_000);
});
