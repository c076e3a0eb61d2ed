import { describe, expect, it } from 'vitest';
import type { ComponentPodFacts, NodeFacts } from './gate-facts.js';
import {
  evaluateKubernetesVersion,
  tagMatches,
  VERSIONED_CONTROL_PLANE,
  type VersionFacts,
} from './kubernetes-version.js';

const SELECTOR = 'node-role.kubernetes.io/control-plane=true';
const RKE2 = {
  kubeletVersion: 'v1.28.15+rke2r1',
  gitVersion: 'v1.28.15+rke2r1',
  imageTag: 'v1.28.15-rke2r1',
};

const node = (name: string, kubeletVersion?: string): NodeFacts => ({
  name,
  labels: {},
  unschedulable: false,
  taints: [],
  ...(kubeletVersion ? { kubeletVersion } : {}),
});

const pod = (component: string, nodeName: string, image: string, phase = 'Running'): ComponentPodFacts => ({
  name: `${component}-${nodeName}`,
  nodeName,
  labels: { component, tier: 'control-plane' },
  args: [],
  phase,
  ready: phase === 'Running',
  image,
});

function cluster(options: {
  kubelets: Record<string, string>;
  controlPlane: string[];
  gitVersion?: string;
  image?: (component: string, node: string) => string;
}): VersionFacts {
  const image =
    options.image ?? (() => `index.docker.io/rancher/hardened-kubernetes:v1.28.15-rke2r1-build20241023`);
  return {
    nodes: Object.entries(options.kubelets).map(([name, v]) => node(name, v)),
    controlPlane: options.controlPlane.map((name) => node(name, options.kubelets[name])),
    gitVersion: options.gitVersion,
    pods: options.controlPlane.flatMap((n) => VERSIONED_CONTROL_PLANE.map((c) => pod(c, n, image(c, n)))),
  };
}

describe('image tags', () => {
  it('accepts the release with a build suffix, never a longer patch', () => {
    expect(tagMatches('v1.28.15-rke2r1-build20241023', 'v1.28.15-rke2r1')).toBe(true);
    expect(tagMatches('v1.28.15', 'v1.28.15')).toBe(true);
    expect(tagMatches('v1.28.150', 'v1.28.15')).toBe(false);
    expect(tagMatches('v1.28.1', 'v1.28.15')).toBe(false);
    expect(tagMatches(undefined, 'v1.28.15')).toBe(false);
  });
});

describe('kubernetes-version gate', () => {
  const all = { cp1: RKE2.kubeletVersion, cp2: RKE2.kubeletVersion, w1: RKE2.kubeletVersion };

  it('passes when every kubelet, the API server and every control-plane pod run the release', () => {
    const verdict = evaluateKubernetesVersion(
      cluster({ kubelets: all, controlPlane: ['cp1', 'cp2'], gitVersion: RKE2.gitVersion }),
      RKE2,
      SELECTOR,
    );
    expect(verdict.type).toBe('pass');
    expect(verdict.type === 'pass' && verdict.detail).toContain('all 3 kubelets run v1.28.15+rke2r1');
  });

  it('waits while a worker kubelet is still on the previous release, naming it', () => {
    const verdict = evaluateKubernetesVersion(
      cluster({
        kubelets: { ...all, w1: 'v1.27.16+rke2r2' },
        controlPlane: ['cp1', 'cp2'],
        gitVersion: RKE2.gitVersion,
      }),
      RKE2,
      SELECTOR,
    );
    expect(verdict).toMatchObject({ type: 'wait' });
    expect(verdict.type === 'wait' && verdict.reason).toContain(
      '1 of 3 kubelets do not run v1.28.15+rke2r1: w1 (v1.27.16+rke2r2)',
    );
  });

  it('waits while the API server that answers is still the old one', () => {
    const verdict = evaluateKubernetesVersion(
      cluster({ kubelets: all, controlPlane: ['cp1', 'cp2'], gitVersion: 'v1.27.16+rke2r2' }),
      RKE2,
      SELECTOR,
    );
    expect(verdict.type === 'wait' && verdict.reason).toContain('the API server reports v1.27.16+rke2r2');
  });

  it('waits while one control-plane pod runs the old image, or is missing, or is not running', () => {
    const old = evaluateKubernetesVersion(
      cluster({
        kubelets: all,
        controlPlane: ['cp1', 'cp2'],
        gitVersion: RKE2.gitVersion,
        image: (c, n) =>
          c === 'kube-scheduler' && n === 'cp2'
            ? 'rancher/hardened-kubernetes:v1.27.16-rke2r2-build20240821'
            : 'rancher/hardened-kubernetes:v1.28.15-rke2r1-build20241023',
      }),
      RKE2,
      SELECTOR,
    );
    expect(old.type === 'wait' && old.reason).toContain(
      'kube-scheduler on cp2 (rancher/hardened-kubernetes:v1.27.16',
    );

    const facts = cluster({ kubelets: all, controlPlane: ['cp1', 'cp2'], gitVersion: RKE2.gitVersion });
    const missing = evaluateKubernetesVersion(
      { ...facts, pods: facts.pods.filter((p) => p.name !== 'kube-apiserver-cp1') },
      RKE2,
      SELECTOR,
    );
    expect(missing.type === 'wait' && missing.reason).toContain('kube-apiserver on cp1 (no pod)');

    const pending = evaluateKubernetesVersion(
      {
        ...facts,
        pods: facts.pods.map((p) =>
          p.name === 'kube-controller-manager-cp2' ? { ...p, phase: 'Pending', ready: false } : p,
        ),
      },
      RKE2,
      SELECTOR,
    );
    expect(pending.type === 'wait' && pending.reason).toContain(
      'kube-controller-manager on cp2 (Pending, not ready)',
    );
  });

  it('requires kube-apiserver and kube-controller-manager on every control-plane node, and judges the scheduler pods it finds', () => {
    const facts = cluster({ kubelets: all, controlPlane: ['cp1', 'cp2'], gitVersion: RKE2.gitVersion });
    const noScheduler = { ...facts, pods: facts.pods.filter((p) => p.labels.component !== 'kube-scheduler') };
    expect(evaluateKubernetesVersion(noScheduler, RKE2, SELECTOR).type).toBe('pass');
    const noKcm = { ...facts, pods: facts.pods.filter((p) => p.name !== 'kube-controller-manager-cp1') };
    expect(evaluateKubernetesVersion(noKcm, RKE2, SELECTOR).type).toBe('wait');
  });

  it('judges RKE (no control-plane pods) on kubelets and /version alone, in the plain upstream form', () => {
    const rke = { kubeletVersion: 'v1.28.14', gitVersion: 'v1.28.14' };
    const facts: VersionFacts = {
      nodes: [node('n1', 'v1.28.14'), node('n2', 'v1.28.14')],
      controlPlane: [],
      gitVersion: 'v1.28.14',
      pods: [],
    };
    expect(evaluateKubernetesVersion(facts, rke, SELECTOR).type).toBe('pass');
    // RKE2's form is not RKE's: a kubelet reporting the suffix does not satisfy a plain expectation.
    const suffixed = { ...facts, nodes: [node('n1', 'v1.28.14+rke2r1'), node('n2', 'v1.28.14')] };
    expect(evaluateKubernetesVersion(suffixed, rke, SELECTOR).type).toBe('wait');
  });

  it('waits with a label hint when no node matches the control-plane selector', () => {
    const verdict = evaluateKubernetesVersion(
      { ...cluster({ kubelets: all, controlPlane: [], gitVersion: RKE2.gitVersion }) },
      RKE2,
      SELECTOR,
    );
    expect(verdict).toMatchObject({ type: 'wait', reason: `no control-plane node matches ${SELECTOR}` });
  });

  it('waits when it reads no nodes or no /version', () => {
    expect(
      evaluateKubernetesVersion(
        { nodes: [], controlPlane: [], gitVersion: undefined, pods: [] },
        RKE2,
        SELECTOR,
      ).type,
    ).toBe('wait');
    const verdict = evaluateKubernetesVersion(
      cluster({ kubelets: all, controlPlane: ['cp1'], gitVersion: undefined }),
      RKE2,
      SELECTOR,
    );
    expect(verdict.type === 'wait' && verdict.reason).toContain('(unreadable /version)');
  });
});
