/**
 * The kubernetes-version gate read over the wire: uproot's gate reader asks the sandbox API server for /version,
 * the nodes' status.nodeInfo.kubeletVersion and the control-plane pods (a set-based label selector), and the
 * pure judgement waits until every part runs the hop's release.
 */
import { distroFacts } from '../../../packages/uproot/src/core/distros/distro-facts.js';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { loadKubeConfig } from '../../../packages/uproot/src/adapters/kube/kubeconfig.js';
import { KubeClient, kubeconfigTransport } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { KubeObjects } from '../../../packages/uproot/src/adapters/kube/kube-objects.js';
import { KubeGateReader } from '../../../packages/uproot/src/adapters/kube/gate-reader.js';
import { gates } from '../../../packages/uproot/src/core/distros/shared/plan-building.js';
import {
  evaluateGate,
  readGateSnapshot,
  type GateContext,
} from '../../../packages/uproot/src/engine/gates/evaluate-gate.js';
import {
  DEFAULT_ADMIN,
  startKubeApiServer,
  writeKubeconfig,
  type KubeApiServer,
} from '../../../packages/sandbox/src/apiserver/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const START = Date.UTC(2026, 0, 1);
const RELEASE = 'v1.28.15+rke2r1';
const SELECTOR = 'node-role.kubernetes.io/control-plane=true';

let server: KubeApiServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

async function cluster(gitVersion: string): Promise<{ server: KubeApiServer; reader: KubeGateReader }> {
  const clock = new VirtualClock(START);
  server = await startKubeApiServer({ clock, random: seededRandom(3), tls: true, version: { gitVersion } });
  dir = mkdtempSync(join(tmpdir(), 'uproot-version-gate-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, [server.kubeconfigEntry(DEFAULT_ADMIN, { contextName: 'sandbox' })], 'sandbox');
  const kc = loadKubeConfig({ kubeconfig }, {});
  const objects = new KubeObjects(new KubeClient(kubeconfigTransport(kc), { clock }, server.url));
  return { server, reader: new KubeGateReader(objects) };
}

function node(s: KubeApiServer, name: string, controlPlane: boolean, kubeletVersion: string): void {
  s.store.create('v1/nodes', {
    metadata: { name, labels: controlPlane ? { 'node-role.kubernetes.io/control-plane': 'true' } : {} },
  });
  const created = s.store.get('v1/nodes', undefined, name)!;
  s.store.update(
    'v1/nodes',
    { ...structuredClone(created), status: { nodeInfo: { kubeletVersion } } },
    { subresource: 'status', name },
  );
}

function staticPod(s: KubeApiServer, component: string, nodeName: string, tag: string): void {
  const name = `${component}-${nodeName}`;
  s.store.create('v1/pods', {
    metadata: { name, namespace: 'kube-system', labels: { component, tier: 'control-plane' } },
    spec: {
      nodeName,
      containers: [
        {
          name: component,
          image: `index.docker.io/rancher/hardened-kubernetes:${tag}`,
          command: [component],
        },
      ],
    },
  });
  const pod = s.store.get('v1/pods', 'kube-system', name)!;
  s.store.update(
    'v1/pods',
    {
      ...structuredClone(pod),
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
    { subresource: 'status', namespace: 'kube-system', name },
  );
}

const ctx: GateContext = {
  facts: distroFacts('rke2'),
  controlPlaneSelector: SELECTOR,
  baseline: [],
  timeline: [],
};

describe('the kubernetes-version gate against an API server', () => {
  it('waits while a worker lags and passes once it runs the release; other kube-system pods are not read', async () => {
    const { server: s, reader } = await cluster(RELEASE);
    node(s, 'cp-1', true, RELEASE);
    node(s, 'worker-1', false, 'v1.27.16+rke2r2');
    for (const component of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'])
      staticPod(s, component, 'cp-1', 'v1.28.15-rke2r1-build20241023');
    // etcd's image has its own version: it must not count.
    staticPod(s, 'etcd', 'cp-1', 'v3.5.13-k3s1');
    const gate = gates.kubernetesVersion('rke2', RELEASE);

    const first = evaluateGate(gate, await readGateSnapshot(gate, reader, ctx), ctx, START);
    expect(first.type).toBe('wait');
    expect(first.type === 'wait' && first.reason).toBe(
      '1 of 2 kubelets do not run v1.28.15+rke2r1: worker-1 (v1.27.16+rke2r2)',
    );

    const worker = s.store.get('v1/nodes', undefined, 'worker-1')!;
    s.store.update(
      'v1/nodes',
      { ...structuredClone(worker), status: { nodeInfo: { kubeletVersion: RELEASE } } },
      { subresource: 'status', name: 'worker-1' },
    );
    const second = evaluateGate(gate, await readGateSnapshot(gate, reader, ctx), ctx, START);
    expect(second).toMatchObject({ type: 'pass' });
  });

  it('reads /version as the API server reports it', async () => {
    const { server: s, reader } = await cluster('v1.27.16+rke2r2');
    node(s, 'cp-1', true, RELEASE);
    for (const component of ['kube-apiserver', 'kube-controller-manager'])
      staticPod(s, component, 'cp-1', 'v1.28.15-rke2r1');
    const gate = gates.kubernetesVersion('rke2', RELEASE);
    const verdict = evaluateGate(gate, await readGateSnapshot(gate, reader, ctx), ctx, START);
    expect(verdict.type === 'wait' && verdict.reason).toBe(
      'the API server reports v1.27.16+rke2r2, expected v1.28.15+rke2r1',
    );
  });
});
