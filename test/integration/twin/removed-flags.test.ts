import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { installKubelet } from '../../../packages/sandbox/src/twin/kubeadm/installed-kubelet.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  kubeletVersions,
  nodes,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';
import { seedCcmValues, withRancherRke2Tolerations } from './seed-manifests.js';

/**
 * Components refuse what their version removed, with upstream's words, so the twin fails where a real cluster
 * fails: the kubelet and the KCM on 1.27 with --cloud-provider=aws (rancher/rke2#4183), the 1.33 apiserver
 * with --cloud-provider (kubernetes/kubernetes#130162), RKE2 1.36's built-in cloud controller (#10351).
 */

const KUBELET_ERROR = 'failed to run Kubelet: unknown cloud provider \\"aws\\"';
const KCM_ERROR = 'cloud provider could not be initialized: unknown cloud provider "aws"';

interface ContainerStatus {
  restartCount: number;
  state: { waiting?: { reason: string }; running?: unknown };
  lastState: { terminated?: { exitCode: number; message: string } };
}

function pod(twin: Twin, name: string): { image: string; status: ContainerStatus | undefined } {
  const p = twin.downstream.store.get('v1/pods', 'kube-system', name);
  return {
    image: (p?.spec as { containers: { image: string }[] } | undefined)?.containers[0]?.image ?? '',
    status: (p?.status as { containerStatuses?: ContainerStatus[] } | undefined)?.containerStatuses?.[0],
  };
}

function ready(twin: Twin, name: string): string | undefined {
  const node = twin.downstream.store.get('v1/nodes', undefined, name);
  return (node?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.find(
    (c) => c.type === 'Ready',
  )?.status;
}

function kubeletVersion(twin: Twin, name: string): string | undefined {
  return kubeletVersions(twin)[name];
}

function editManifest(twin: Twin, node: string, component: string, edit: (text: string) => string): void {
  const path = join(twin.files.nodes!, node, 'etc/kubernetes/manifests', `${component}.yaml`);
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
}

describe('components refuse what their version removed', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('RKE2 upgraded to 1.27 on in-tree flags: the first server’s kubelet exits, Rancher waits for its probes', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock, { nodes: 4 });
    const h = harness;
    const { twin } = h;
    await clock.advanceBy(30_000);
    const first = twin.nodes.all()[0]!;
    const firstNode = first.nodeName!;
    const patch = (version: string) => patchRancherCluster(h, { kubernetesVersion: version });
    expect((await patch('v1.27.16+rke2r1')).code).toBe(0);
    await advanceUntil(clock, () => ready(twin, firstNode) === 'Unknown', { stepMs: 2_000 });
    expect(h.logs.some((l) => l.includes(`"command failed" err="${KUBELET_ERROR}"`))).toBe(true);
    expect(first.kubeletFailure?.error).toBe('failed to run Kubelet: unknown cloud provider "aws"');

    // Rancher never gets past the first server: the rest still run 1.26. With drain disabled (the scenario's
    // default) Rancher neither cordons nor uncordons (rancher/rancher pkg/capr/planner/drain.go), so the failed
    // server is NotReady but not cordoned.
    await clock.advanceBy(300_000);
    const updated = (
      twin.status().cluster?.conditions as { type: string; status: string; message?: string }[]
    )
      .filter((c) => c.type === 'Updated' || c.type === 'Reconciling')
      .map((c) => [c.type, c.status, c.message]);
    expect(updated).toEqual([
      [
        'Updated',
        'False',
        `configuring bootstrap node(s) ${first.instance.machineName}: waiting for probes: kubelet`,
      ],
      [
        'Reconciling',
        'True',
        `configuring bootstrap node(s) ${first.instance.machineName}: waiting for probes: kubelet`,
      ],
    ]);
    const others = twin.nodes.all().slice(1);
    for (const a of others) {
      expect(kubeletVersion(twin, a.nodeName!)).toBe('v1.26.15+rke2r1');
      expect(ready(twin, a.nodeName!)).toBe('True');
    }
    expect(nodes(twin).find((n) => n.name === firstNode)?.unschedulable).toBeFalsy();
    // The kubelet is gone but its containers are not: the 1.26 apiserver still answers.
    expect(twin.downstream.version.gitVersion).toBe('v1.26.15+rke2r1');
    expect(pod(twin, `kube-apiserver-${firstNode}`).image).toContain(':v1.26.15-rke2r1');
    expect(twin.status()).toMatchObject({
      apiServerVersion: 'v1.26.15+rke2r1',
      failing: [
        {
          node: firstNode,
          component: 'kubelet',
          error: 'failed to run Kubelet: unknown cloud provider "aws"',
        },
      ],
    });

    // Putting the version back brings the node back.
    expect((await patch('v1.26.15+rke2r1')).code).toBe(0);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    expect(ready(twin, firstNode)).toBe('True');
    expect(first.kubeletFailure).toBeUndefined();
  }, 180_000);

  it('kubeadm on 1.27 images with --cloud-provider=aws: each KCM crashes once it leads; a 1.27 kubelet exits', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('kubeadm-intree', clock, { nodes: 4 });
    const { twin } = harness;
    await clock.advanceBy(30_000);
    const servers = twin.nodes.all().filter((a) => a.instance.role === 'control-plane');
    for (const a of servers) {
      for (const component of ['kube-apiserver', 'kube-controller-manager']) {
        editManifest(twin, a.nodeName!, component, (t) =>
          t.replace(`${component}:v1.26.15`, `${component}:v1.27.16`),
        );
      }
    }
    await advanceUntil(
      clock,
      () =>
        servers.filter(
          (a) =>
            (pod(twin, `kube-controller-manager-${a.nodeName}`).status?.lastState.terminated?.message ??
              '') === KCM_ERROR,
        ).length >= 2,
      { stepMs: 2_000, maxMs: 900_000 },
    );
    const restarted = servers.filter(
      (a) => (pod(twin, `kube-controller-manager-${a.nodeName}`).status?.restartCount ?? 0) >= 1,
    );
    expect(restarted.length).toBeGreaterThanOrEqual(2);
    const backoffs = twin.downstream.store
      .list('v1/events', { namespace: 'kube-system' })
      .items.filter((e) => e.reason === 'BackOff' && String(e.message).includes('kube-controller-manager'));
    expect(backoffs.length).toBeGreaterThan(0);
    // 1.27's apiserver still accepts the flag (validation of --cloud-provider came in 1.29).
    for (const a of servers) expect(pod(twin, `kube-apiserver-${a.nodeName}`).status?.restartCount).toBe(0);
    expect(twin.downstream.version.gitVersion).toBe('v1.27.16');

    // Upgrading a kubelet package while kubeadm-flags.env still says --cloud-provider=aws.
    const worker = twin.nodes.all().find((a) => a.instance.role !== 'control-plane')!;
    installKubelet(twin.files.nodes!, worker.nodeName!, 'v1.27.16');
    await advanceUntil(clock, () => ready(twin, worker.nodeName!) === 'Unknown', { stepMs: 2_000 });
    expect(worker.kubeletFailure?.error).toBe('failed to run Kubelet: unknown cloud provider "aws"');
    // Its Node keeps the last status it posted.
    expect(kubeletVersion(twin, worker.nodeName!)).toBe('v1.26.15');
  }, 180_000);

  it('a 1.33 kube-apiserver exits on --cloud-provider; /version falls to the next running instance', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(
      {
        name: 'kubeadm-132',
        description: 'kubeadm 1.32 on the external provider',
        distribution: 'kubeadm',
        kubernetesVersion: 'v1.32.4',
        cloudProvider: 'external',
        nodes: { controlPlane: 2, workers: 0 },
      },
      clock,
    );
    const { twin } = harness;
    await clock.advanceBy(30_000);
    const [a, b] = twin.nodes.all();
    expect(twin.downstream.version.gitVersion).toBe('v1.32.4');
    editManifest(twin, a!.nodeName!, 'kube-apiserver', (t) =>
      t.replace('kube-apiserver:v1.32.4', 'kube-apiserver:v1.33.1'),
    );
    await advanceUntil(
      clock,
      () => pod(twin, `kube-apiserver-${a!.nodeName}`).status?.state.waiting?.reason === 'CrashLoopBackOff',
      { stepMs: 1_000 },
    );
    expect(pod(twin, `kube-apiserver-${a!.nodeName}`).status?.lastState.terminated).toMatchObject({
      exitCode: 1,
      message: 'unknown flag: --cloud-provider',
    });
    expect(harness.logs.some((l) => l.includes('Error: unknown flag: --cloud-provider'))).toBe(true);
    expect(twin.downstream.version.gitVersion).toBe('v1.32.4');
    expect(pod(twin, `kube-apiserver-${b!.nodeName}`).image).toContain(':v1.32.4');

    // Dropping the flag, as the 1.33 hop must: the instance runs and answers again.
    editManifest(twin, a!.nodeName!, 'kube-apiserver', (t) =>
      t.replace(/\n\s*- --cloud-provider=external/, ''),
    );
    await advanceUntil(clock, () => twin.downstream.version.gitVersion === 'v1.33.1', { stepMs: 1_000 });
    expect(twin.downstream.version).toMatchObject({
      minor: '33',
      emulationMinor: '33',
      minCompatibilityMinor: '32',
    });
  }, 120_000);

  it('RKE2 from 1.36 runs its built-in cloud controller next to the AWS CCM, which loses the race (#10351)', async () => {
    const scenario = (version: string) => ({
      name: 'rke2-ccm',
      description: 'RKE2 on the external provider with the AWS CCM chart',
      distribution: 'rke2' as const,
      kubernetesVersion: version,
      clusterName: 'demo',
      cloudProvider: 'external' as const,
      nodes: { controlPlane: 1, workers: 1 },
      // Seed 004's values plus the tolerations Rancher's role taints need (decision 0011, role taints).
      ccm: {
        values: withRancherRke2Tolerations(
          seedCcmValues({ roleLabel: 'control-plane', leaderMigration: false }),
        ),
      },
    });
    for (const [version, scheme, builtIn] of [
      ['v1.35.3+rke2r1', 'aws:///', false],
      ['v1.36.0+rke2r1', 'rke2://', true],
    ] as const) {
      const clock = new VirtualClock();
      harness = await startHarness(scenario(version), clock);
      const { twin } = harness;
      await advanceUntil(clock, () => nodes(twin).every((n) => n.providerID !== undefined), {
        stepMs: 2_000,
        describe: () => JSON.stringify(nodes(twin)),
      });
      expect(nodes(twin).map((n) => n.providerID?.slice(0, scheme.length))).toEqual([scheme, scheme]);
      const server = twin.nodes.all()[0]!.nodeName!;
      expect(pod(twin, `cloud-controller-manager-${server}`).image !== '').toBe(builtIn);
      if (builtIn) {
        const node = twin.downstream.store.get('v1/nodes', undefined, server);
        expect(node?.metadata?.labels?.['node.kubernetes.io/instance-type']).toBe('rke2');
        expect(node?.metadata?.labels?.['topology.kubernetes.io/zone']).toBeUndefined();
      }
      await harness.close();
      harness = undefined;
    }
  }, 180_000);
});
