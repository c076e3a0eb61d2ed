import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * Restarting rke2-server/rke2-agent (and so the kubelet) leaves running containers alone: containerd and its
 * shims keep them (rancher/rke2 discussion #8665; only rke2-killall.sh stops them). A DaemonSet pod touched while
 * its kubelet is down must still be the same running container afterwards.
 */

interface AgentPod {
  name: string;
  node: string;
  startedAt: string | undefined;
  ready: boolean;
}

function agentPods(twin: Twin): AgentPod[] {
  return twin.downstream.store
    .list('v1/pods', { namespace: 'default' })
    .items.filter((p) => (p.metadata?.name ?? '').startsWith('agent-'))
    .map((p) => {
      const status = (p.status ?? {}) as {
        conditions?: { type: string; status: string }[];
        containerStatuses?: { state?: { running?: { startedAt?: string } } }[];
      };
      return {
        name: p.metadata?.name ?? '',
        node: (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '',
        startedAt: status.containerStatuses?.[0]?.state?.running?.startedAt,
        ready: (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      };
    })
    .sort((a, b) => a.node.localeCompare(b.node));
}

describe('a kubelet restart', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('keeps a DaemonSet pod’s running container, even when the pod changes while the kubelet is down', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(
      {
        name: 'rke2-kubelet-restart',
        description: 'RKE2 on the external provider with a DaemonSet',
        distribution: 'rke2',
        kubernetesVersion: 'v1.27.16+rke2r1',
        clusterName: 'demo',
        cloudProvider: 'external',
        nodes: { controlPlane: 1, workers: 1 },
        workloads: { daemonSets: [{ name: 'agent', image: 'registry.k8s.io/pause:3.9' }] },
      },
      clock,
    );
    const h = harness;
    const { twin } = h;
    await advanceUntil(clock, () => agentPods(twin).filter((p) => p.ready).length === 2, { stepMs: 2_000 });
    const before = agentPods(twin);

    const patched = await patchRancherCluster(h, {
      rkeConfig: {
        machineGlobalConfig: { 'cloud-provider-name': 'external', 'kubelet-arg': ['max-pods=120'] },
      },
    });
    expect(patched.code, patched.stderr).toBe(0);
    // Catch a node whose kubelet is restarting and change its pod then (any pod event syncs it).
    await advanceUntil(clock, () => twin.nodes.all().some((a) => a.nodeName !== undefined && !a.running), {
      stepMs: 100,
    });
    const down = twin.nodes.all().find((a) => a.nodeName !== undefined && !a.running)!;
    const pod = before.find((p) => p.node === down.nodeName)!;
    twin.kube.mutate('v1/pods', 'default', pod.name, (draft) => {
      draft.metadata = { ...draft.metadata, labels: { ...draft.metadata?.labels, touched: 'yes' } };
      return draft;
    });
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    await advanceUntil(clock, () => agentPods(twin).every((p) => p.ready), { stepMs: 2_000 });

    expect(agentPods(twin)).toEqual(before);
  }, 120_000);
});
