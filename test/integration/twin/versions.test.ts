import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { installKubelet } from '../../../packages/sandbox/src/twin/kubeadm/installed-kubelet.js';
import type { ScenarioInput } from '../../../packages/sandbox/src/scenarios/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  kubeletVersions,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * The twin is the version its cluster definition says, and follows it as it changes: kubelets
 * (status.nodeInfo.kubeletVersion), control-plane pod image tags, and `/version` (decision 0012), read with
 * the real kubectl (whose dispatcher picks its binary from `/version`).
 */

function images(twin: Twin, prefix: string): string[] {
  return twin.downstream.store
    .list('v1/pods', { namespace: 'kube-system' })
    .items.filter((p) => (p.metadata?.name ?? '').startsWith(prefix))
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
    .map((p) =>
      ((p.spec as { containers: { image: string }[] }).containers[0]?.image ?? '').split(':').pop()!,
    );
}

async function serverVersion(h: TwinHarness): Promise<{ server: string; client: string }> {
  const out = await h.kubectl(['version', '-o', 'json']);
  expect(out.code, out.stderr).toBe(0);
  const v = JSON.parse(out.stdout) as {
    serverVersion: { gitVersion: string };
    clientVersion: { gitVersion: string };
  };
  return { server: v.serverVersion.gitVersion, client: v.clientVersion.gitVersion };
}

/** A small twin (2 control-plane nodes, 1 worker) already on the external provider, ready for a hop. */
function external(distribution: 'rke2' | 'rke' | 'kubeadm', kubernetesVersion: string): ScenarioInput {
  return {
    name: `${distribution}-versions`,
    description: `${distribution} on the external provider, for a version hop`,
    distribution,
    kubernetesVersion,
    clusterName: 'demo',
    cloudProvider: 'external',
    nodes: { controlPlane: 2, workers: 1 },
  };
}

describe('the twin runs the version of its cluster definition', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('RKE2: spec.kubernetesVersion rolls kubelets, pods and /version, control plane first', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(external('rke2', 'v1.26.15+rke2r1'), clock);
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    expect(Object.values(kubeletVersions(twin))).toEqual([
      'v1.26.15+rke2r1',
      'v1.26.15+rke2r1',
      'v1.26.15+rke2r1',
    ]);
    expect(images(twin, 'kube-apiserver-')).toEqual(['v1.26.15-rke2r1', 'v1.26.15-rke2r1']);
    // kubectl's dispatcher has no 1.26 binary: it falls back to its default.
    expect(await serverVersion(h)).toEqual({
      server: 'v1.26.15+rke2r1',
      client: expect.stringMatching(/^v1\.32\./),
    });

    const patched = await patchRancherCluster(h, { kubernetesVersion: 'v1.27.16+rke2r1' });
    expect(patched.code, patched.stderr).toBe(0);

    // Mid-roll: the first control-plane node runs 1.27 and answers /version; the second is still 1.26.
    await advanceUntil(clock, () => images(twin, 'kube-apiserver-')[0] === 'v1.27.16-rke2r1', {
      stepMs: 500,
    });
    expect(images(twin, 'kube-apiserver-')[1]).toBe('v1.26.15-rke2r1');
    expect(twin.downstream.version.gitVersion).toBe('v1.27.16+rke2r1');
    expect(Object.values(kubeletVersions(twin)).filter((v) => v.startsWith('v1.27'))).toHaveLength(1);

    await advanceUntil(clock, () => clusterRolledOut(twin), {
      stepMs: 2_000,
      describe: () => JSON.stringify(twin.status().cluster),
    });
    expect(Object.values(kubeletVersions(twin))).toEqual([
      'v1.27.16+rke2r1',
      'v1.27.16+rke2r1',
      'v1.27.16+rke2r1',
    ]);
    expect(images(twin, 'kube-apiserver-')).toEqual(['v1.27.16-rke2r1', 'v1.27.16-rke2r1']);
    expect(images(twin, 'kube-controller-manager-')).toEqual(['v1.27.16-rke2r1', 'v1.27.16-rke2r1']);
    const after = await serverVersion(h);
    expect(after.server).toBe('v1.27.16+rke2r1');
    expect(after.client).toMatch(/^v1\.27\./);
    // OpenAPI's info.version follows.
    const openapi = await h.kubectl(['get', '--raw', '/openapi/v3/api/v1']);
    expect(JSON.parse(openapi.stdout)).toMatchObject({ info: { version: 'v1.27.16+rke2r1' } });
  }, 120_000);

  it('RKE: kubernetes_version applied by rke up; kubelets report the plain version', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(external('rke', 'v1.26.15-rancher1-1'), clock);
    const { twin } = harness;
    await clock.advanceBy(30_000);
    expect(new Set(Object.values(kubeletVersions(twin)))).toEqual(new Set(['v1.26.15']));
    expect(twin.downstream.version).toMatchObject({ gitVersion: 'v1.26.15', minor: '26' });
    const file = twin.files.rkeConfig!;
    const text = readFileSync(file, 'utf8').replace(
      'kubernetes_version: v1.26.15-rancher1-1',
      'kubernetes_version: v1.27.16-rancher1-1',
    );
    let result: Awaited<ReturnType<Twin['applyRkeConfig']>> | undefined;
    void twin.applyRkeConfig(text, file).then((r) => (result = r));
    await advanceUntil(clock, () => result !== undefined, { stepMs: 2_000 });
    expect(result, JSON.stringify(result?.log)).toMatchObject({ ok: true });
    expect(new Set(Object.values(kubeletVersions(twin)))).toEqual(new Set(['v1.27.16']));
    expect(twin.downstream.version).toMatchObject({ gitVersion: 'v1.27.16', minor: '27' });
  }, 120_000);

  it('RKE2: a release that does not exist stalls the Cluster with Rancher’s message; no node moves (issue 25)', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(external('rke2', 'v1.26.15+rke2r1'), clock);
    const h = harness;
    await clock.advanceBy(30_000);
    const patched = await patchRancherCluster(h, { kubernetesVersion: 'v1.27.99+rke2r1' });
    expect(patched.code, patched.stderr).toBe(0);
    const stalled = (): { status?: string; message?: string } | undefined => {
      const cluster = h.twin.management?.store.get(
        'provisioning.cattle.io/v1/clusters',
        'fleet-default',
        h.twin.scenario.clusterName,
      );
      const conditions = (
        cluster?.status as { conditions?: { type: string; status: string; message?: string }[] }
      )?.conditions;
      return conditions?.find((c) => c.type === 'Stalled');
    };
    await advanceUntil(clock, () => stalled()?.status === 'True', { stepMs: 1_000 });
    expect(stalled()?.message).toMatch(
      /^configuring bootstrap node\(s\) \S+: error applying plan -- check rancher-system-agent\.service logs on node for more information$/,
    );
    await clock.advanceBy(30_000);
    expect(new Set(Object.values(kubeletVersions(h.twin)))).toEqual(new Set(['v1.26.15+rke2r1']));
  }, 120_000);

  it('RKE: rke up refuses a kubernetes_version its KDM does not know, before touching a host (issue 25)', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(external('rke', 'v1.26.15-rancher1-1'), clock);
    const { twin } = harness;
    await clock.advanceBy(30_000);
    const file = twin.files.rkeConfig!;
    const text = readFileSync(file, 'utf8').replace(
      'kubernetes_version: v1.26.15-rancher1-1',
      'kubernetes_version: v1.27.99-rancher1-1',
    );
    let result: Awaited<ReturnType<Twin['applyRkeConfig']>> | undefined;
    void twin.applyRkeConfig(text, file).then((r) => (result = r));
    await advanceUntil(clock, () => result !== undefined, { stepMs: 1_000 });
    expect(result).toMatchObject({
      ok: false,
      reason:
        'Failed to validate cluster: v1.27.99-rancher1-1 is an unsupported Kubernetes version and system images are not populated: etcd image is not populated',
    });
    expect(new Set(Object.values(kubeletVersions(twin)))).toEqual(new Set(['v1.26.15']));
  }, 120_000);

  it('kubeadm: manifests’ image tags roll the control plane; the installed kubelet file the kubelets', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(external('kubeadm', 'v1.26.15'), clock);
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    const machines = Object.keys(kubeletVersions(twin)).sort();
    expect(readFileSync(join(twin.files.nodes!, machines[0]!, 'usr/bin/kubelet'), 'utf8')).toBe(
      'Kubernetes v1.26.15\n',
    );
    // kubeadm upgrade on the first control-plane node: its manifests get the 1.27 tags.
    const first = twin.nodes.all().find((a) => a.instance.role === 'control-plane')!.nodeName!;
    for (const component of ['kube-apiserver', 'kube-controller-manager']) {
      const path = join(twin.files.nodes!, first, 'etc/kubernetes/manifests', `${component}.yaml`);
      writeFileSync(
        path,
        readFileSync(path, 'utf8').replace(`${component}:v1.26.15`, `${component}:v1.27.16`),
      );
    }
    await advanceUntil(clock, () => twin.downstream.version.gitVersion === 'v1.27.16', { stepMs: 1_000 });
    expect(images(twin, 'kube-apiserver-').sort()).toEqual(['v1.26.15', 'v1.27.16']);
    // Kubelets keep the installed package until someone upgrades it (kubeadm's skew policy allows it).
    expect(new Set(Object.values(kubeletVersions(twin)))).toEqual(new Set(['v1.26.15']));
    for (const node of Object.keys(kubeletVersions(twin)))
      installKubelet(twin.files.nodes!, node, 'v1.27.16');
    await advanceUntil(clock, () => Object.values(kubeletVersions(twin)).every((v) => v === 'v1.27.16'), {
      stepMs: 1_000,
      describe: () => JSON.stringify(kubeletVersions(twin)),
    });
    const nodesOut = await h.kubectl([
      'get',
      'nodes',
      '-o',
      'jsonpath={.items[*].status.nodeInfo.kubeletVersion}',
    ]);
    expect(nodesOut.stdout.split(' ')).toEqual(['v1.27.16', 'v1.27.16', 'v1.27.16']);
  }, 120_000);
});
