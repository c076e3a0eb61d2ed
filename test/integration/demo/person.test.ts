/**
 * The demo's person on a kubeadm twin does what the plan's manual change says, read from its actions: the
 * kube-apiserver manifest of each control-plane machine (image and flag, its own address kept), every
 * kubelet's flags and package (the node then reports the version), and kubeadm's stored ClusterConfiguration.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readClusterFiles } from '../../../packages/uproot/src/adapters/cluster-source/cluster-source.js';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { planClusterFiles } from '../../../packages/uproot/src/core/plan/plan-cluster.js';
import type { ManualAction } from '../../../packages/uproot/src/core/model/plan-types.js';
import { KubeadmHands } from '../../../packages/sandbox/src/demo/twin-person-kubeadm.js';
import { actAsPerson } from '../../../packages/sandbox/src/demo/twin-person.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import {
  KUBEADM_CONFIG,
  kubeadmConfigMap,
} from '../../../packages/sandbox/src/twin/kubeadm/kubeadm-files.js';
import { distroVersion } from '../../../packages/sandbox/src/twin/layout/versions.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import { advanceUntil, kubeletVersions, startHarness, type TwinHarness } from '../twin/support.js';

function clusterConfiguration(twin: Twin): Record<string, unknown> {
  const cm = twin.kube.get(R.configmaps, KUBEADM_CONFIG.namespace, KUBEADM_CONFIG.name);
  return parse(String((cm?.data as Record<string, string>)[KUBEADM_CONFIG.key])) as Record<string, unknown>;
}

describe('the demo person on a kubeadm twin', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('moves kube-apiserver, the kubelets and kubeadm-config to 1.27 with the external provider, machine by machine', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('kubeadm-intree', clock, { nodes: 4 });
    const { twin } = harness;
    await clock.advanceBy(30_000);
    expect(clusterConfiguration(twin)).toMatchObject({
      kind: 'ClusterConfiguration',
      apiVersion: 'kubeadm.k8s.io/v1beta3',
      kubernetesVersion: 'v1.26.15',
      apiServer: { extraArgs: { 'cloud-provider': 'aws' } },
    });
    const nodesDir = twin.files.nodes!;
    const apiserverOf = (m: string) => join(nodesDir, m, 'etc/kubernetes/manifests/kube-apiserver.yaml');
    const machines = readdirSync(nodesDir).sort();
    const controlPlane = machines.filter((m) => existsSync(apiserverOf(m)));
    const first = dirname(apiserverOf(controlPlane[0]!));
    const { plan } = planClusterFiles(readClusterFiles([first]), { targetVersion: 'v1.27.16' });
    const roll = plan.steps.find((s) => s.id === 'roll-control-plane')!;
    const manual = roll.changes.find((c) => c.type === 'manual')!;
    expect(manual.type === 'manual' && manual.actions?.map((a) => a.type)).toEqual([
      'edit-static-pod',
      'edit-static-pod',
      'kubelet',
      'edit-kubeadm-config',
    ]);
    const addresses = controlPlane.map(
      (m) => /--advertise-address=(\S+)/.exec(readFileSync(apiserverOf(m), 'utf8'))?.[1],
    );

    let did: string | undefined;
    const person = actAsPerson(twin, clock, plan, {
      step: 'roll-control-plane',
      instructions: manual.type === 'manual' ? manual.instructions : '',
    }).then((d) => (did = d));
    await advanceUntil(clock, () => did !== undefined, {
      stepMs: 1_000,
      describe: () => harness!.logs.slice(-5).join('\n'),
    });
    await person;

    expect(did).toMatch(/on 3 control-plane machine\(s\), one at a time \(3 file\(s\) changed\)/);
    expect(did).not.toMatch(/moved on/);
    for (const [i, m] of controlPlane.entries()) {
      const text = readFileSync(apiserverOf(m), 'utf8');
      expect(text).toContain('image: registry.k8s.io/kube-apiserver:v1.27.16');
      expect(text).toContain('--cloud-provider=external');
      expect(text).not.toContain('--cloud-provider=aws');
      expect(/--advertise-address=(\S+)/.exec(text)?.[1]).toBe(addresses[i]);
    }
    for (const m of machines) {
      expect(readFileSync(join(nodesDir, m, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8')).toContain(
        '--cloud-provider=external',
      );
      expect(readFileSync(join(nodesDir, m, 'usr/bin/kubelet'), 'utf8')).toBe('Kubernetes v1.27.16\n');
    }
    // The machines came back on 1.27 before the person moved on: every node reports it, /version too.
    expect(new Set(Object.values(kubeletVersions(twin)))).toEqual(new Set(['v1.27.16']));
    expect(twin.downstream.version.gitVersion).toBe('v1.27.16');
    expect(clusterConfiguration(twin)).toMatchObject({
      kubernetesVersion: 'v1.27.16',
      apiServer: { extraArgs: { 'cloud-provider': 'external', 'authorization-mode': 'Node,RBAC' } },
      controllerManager: { extraArgs: { 'cloud-provider': 'external', 'configure-cloud-routes': 'false' } },
      networking: { serviceSubnet: '10.96.0.0/12' },
    });
  }, 180_000);

  it('edits kubeadm-config as stored: a v1beta3 map, or from kubeadm 1.31 a v1beta4 list of name/value pairs', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('kubeadm-intree', clock, { nodes: 1 });
    const { twin } = harness;
    const hands = new KubeadmHands(twin.files.nodes!, twin.kube, clock);
    // What the 1.33 hop asks (kube-apiserver 1.33 has no --cloud-provider, kubernetes/kubernetes#130162).
    const hop33: Extract<ManualAction, { type: 'edit-kubeadm-config' }> = {
      type: 'edit-kubeadm-config',
      fields: [
        { path: 'kubernetesVersion', value: 'v1.33.13' },
        { path: 'apiServer.extraArgs.cloud-provider' },
        { path: 'apiServer.extraArgs.cloud-config' },
      ],
    };
    expect(hands.editKubeadmConfig(hop33)).toBe(
      'kubeadm-config: kubernetesVersion: v1.33.13, no apiServer.extraArgs.cloud-provider, no apiServer.extraArgs.cloud-config',
    );
    const beta3 = clusterConfiguration(twin);
    expect(beta3.kubernetesVersion).toBe('v1.33.13');
    expect(beta3.apiServer).toEqual({
      extraArgs: { 'authorization-mode': 'Node,RBAC' },
      timeoutForControlPlane: '4m0s',
    });
    expect(beta3.controllerManager).toEqual({
      extraArgs: { 'cloud-provider': 'aws', 'configure-cloud-routes': 'false' },
    });

    twin.kube.put(R.configmaps, kubeadmConfigMap(distroVersion('kubeadm', 'v1.31.14'), 'external'));
    hands.editKubeadmConfig({
      type: 'edit-kubeadm-config',
      fields: [
        { path: 'kubernetesVersion', value: 'v1.32.13' },
        { path: 'controllerManager.extraArgs.cloud-provider', value: 'external' },
        { path: 'apiServer.extraArgs.cloud-provider' },
      ],
    });
    const beta4 = clusterConfiguration(twin);
    expect(beta4).toMatchObject({ apiVersion: 'kubeadm.k8s.io/v1beta4', kubernetesVersion: 'v1.32.13' });
    expect(beta4.apiServer).toEqual({ extraArgs: [{ name: 'authorization-mode', value: 'Node,RBAC' }] });
    expect(beta4.controllerManager).toEqual({
      extraArgs: [
        { name: 'configure-cloud-routes', value: 'false' },
        { name: 'cloud-provider', value: 'external' },
      ],
    });
  }, 60_000);
});
