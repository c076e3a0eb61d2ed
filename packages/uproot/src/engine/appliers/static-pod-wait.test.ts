import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { VirtualClock } from '../../clock/index.js';
import type { ComponentPodFacts } from '../gates/gate-facts.js';
import { differingNodes, managerManifest, staticPodCaughtUp, waitForStaticPod } from './static-pod-wait.js';

const manifest = (component: string, command: string[], image?: string) =>
  stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: component, namespace: 'kube-system', labels: { component } },
    spec: { containers: [{ name: component, ...(image ? { image } : {}), command }] },
  });

const pod = (node: string, args: string[], ready = true, image?: string): ComponentPodFacts => ({
  name: `kube-controller-manager-${node}`,
  nodeName: node,
  labels: { component: 'kube-controller-manager' },
  args,
  phase: 'Running',
  ready,
  ...(image ? { image } : {}),
});

const KCM = 'kube-controller-manager' as const;

describe('managerManifest', () => {
  it('reads the manager and its flags from a static pod manifest', () => {
    expect(
      managerManifest(manifest('kube-controller-manager', ['kube-controller-manager', '--b=2', '--a=1'])),
    ).toEqual({ component: 'kube-controller-manager', flags: ['--a=1', '--b=2'] });
  });
  it('reads the image the manifest runs', () => {
    const image = 'registry.k8s.io/kube-controller-manager:v1.33.4';
    expect(managerManifest(manifest(KCM, ['kube-controller-manager', '--a=1'], image))).toEqual({
      component: KCM,
      flags: ['--a=1'],
      image,
    });
  });
  it('ignores the apiserver, configuration files and bad YAML', () => {
    expect(managerManifest(manifest('kube-apiserver', ['kube-apiserver', '--x']))).toBeUndefined();
    expect(managerManifest('kind: LeaderMigrationConfiguration\n')).toBeUndefined();
    expect(managerManifest('a: [')).toBeUndefined();
  });
});

describe('staticPodCaughtUp', () => {
  const flags = ['--cloud-provider=external'];
  const want = { component: KCM, flags };
  it('waits while the node has no pod, runs other flags, or is not ready', () => {
    expect(staticPodCaughtUp([], 'n1', want).type).toBe('waiting');
    const old = staticPodCaughtUp([pod('n1', ['kcm', '--cloud-provider=aws'])], 'n1', want);
    expect(old).toMatchObject({ type: 'waiting' });
    expect(old.type === 'waiting' && old.detail).toMatch(
      /missing --cloud-provider=external, still --cloud-provider=aws/,
    );
    expect(staticPodCaughtUp([pod('n1', ['kcm', ...flags], false)], 'n1', want).type).toBe('waiting');
  });
  it('is caught up when that node runs exactly the flags and is ready (other nodes do not count)', () => {
    const pods = [pod('n2', ['kcm', '--cloud-provider=aws']), pod('n1', ['kcm', ...flags])];
    expect(staticPodCaughtUp(pods, 'n1', want).type).toBe('caught-up');
    expect(staticPodCaughtUp(pods, 'n2', want).type).toBe('waiting');
  });
  it('waits while the node runs the same flags from the previous image (a hop that changes only the tag)', () => {
    const next = { ...want, image: 'registry.k8s.io/kube-controller-manager:v1.33.4' };
    const previous = pod('n1', ['kcm', ...flags], true, 'registry.k8s.io/kube-controller-manager:v1.32.8');
    const state = staticPodCaughtUp([previous], 'n1', next);
    expect(state).toMatchObject({ type: 'waiting' });
    expect(state.type === 'waiting' && state.detail).toMatch(/still runs image .*v1\.32\.8, not .*v1\.33\.4/);
    expect(staticPodCaughtUp([pod('n1', ['kcm', ...flags], true)], 'n1', next).type).toBe('waiting');
  });
  it('takes the image by its tag (a mirror may rewrite the registry) and still needs the pod ready', () => {
    const next = { ...want, image: 'registry.k8s.io/kube-controller-manager:v1.33.4' };
    const mirrored = 'mirror.example:5000/k8s/kube-controller-manager:v1.33.4';
    expect(staticPodCaughtUp([pod('n1', ['kcm', ...flags], true, mirrored)], 'n1', next).type).toBe(
      'caught-up',
    );
    expect(staticPodCaughtUp([pod('n1', ['kcm', ...flags], false, mirrored)], 'n1', next).type).toBe(
      'waiting',
    );
  });
});

describe('waitForStaticPod', () => {
  const target = { component: 'kube-controller-manager' as const, flags: ['--cloud-provider=external'] };

  it('returns once the kubelet has restarted the component with the new flags', async () => {
    const clock = new VirtualClock(0);
    let reads = 0;
    const done = waitForStaticPod(
      {
        clock,
        timeoutMs: 60_000,
        pods: async () => [
          pod('n1', ['kcm', ++reads < 4 ? '--cloud-provider=aws' : '--cloud-provider=external']),
        ],
      },
      'n1',
      '/etc/kubernetes/manifests/kube-controller-manager.yaml',
      target,
    );
    await clock.runUntilIdle();
    await expect(done).resolves.toBeUndefined();
    expect(reads).toBe(4);
  });

  it('gives up after the deadline with the node, the file and the last state', async () => {
    const clock = new VirtualClock(0);
    const done = waitForStaticPod(
      { clock, timeoutMs: 10_000, pods: async () => [] },
      'n1',
      '/etc/kubernetes/manifests/kube-controller-manager.yaml',
      target,
    );
    const seen = done.catch((e: unknown) => e);
    await clock.runUntilIdle();
    expect(await seen).toMatchObject({
      code: 'UP-KUBEADM-STATIC-POD',
      message: expect.stringMatching(/written on n1, but after 10 s: no kube-controller-manager pod on n1/),
    });
  });
});

describe('differingNodes', () => {
  const target = ['--cloud-provider=external'];
  it('agrees when every node runs the same flags, leaving out nodes already at the target', () => {
    const pods = [
      pod('n1', ['kcm', '--cloud-provider=aws']),
      pod('n2', ['kcm', '--cloud-provider=aws']),
      pod('n3', ['kcm', ...target]),
    ];
    expect(differingNodes(pods, ['n1', 'n2', 'n3'], target)).toBeUndefined();
  });
  it('names the nodes whose flags differ', () => {
    const pods = [
      pod('n1', ['kcm', '--cloud-provider=aws']),
      pod('n2', ['kcm', '--cloud-provider=aws', '--v=4']),
    ];
    expect(differingNodes(pods, ['n1', 'n2'], target)).toEqual([
      'n1: --cloud-provider=aws',
      'n2: --cloud-provider=aws --v=4',
    ]);
  });
});
