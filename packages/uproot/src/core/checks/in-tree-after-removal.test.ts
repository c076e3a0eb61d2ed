import { describe, expect, it } from 'vitest';
import { readClusterDefinition } from '../distros/preflight-definition.js';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import type { ClusterDefinition } from '../model/cluster-definition.js';

function define(m: MutableSnapshot, definition: ClusterDefinition): void {
  m.kube.clusterDefinition = { state: 'ok', value: structuredClone(definition) as never };
}

const rke2Cluster = (version: string, global: Record<string, unknown>) =>
  readClusterDefinition(
    {
      apiVersion: 'provisioning.cattle.io/v1',
      kind: 'Cluster',
      metadata: { name: 'prod', namespace: 'fleet-default' },
      spec: { kubernetesVersion: version, rkeConfig: { machineGlobalConfig: global } },
    },
    'Rancher cluster fleet-default/prod',
  );

describe('in-tree-after-removal', () => {
  it('passes a 1.26 cluster on the in-tree provider (it can still migrate)', () => {
    const s = snapshotWith((m) => {
      define(m, rke2Cluster('v1.26.15+rke2r1', { 'cloud-provider-name': 'aws' }));
    });
    expect(resultOf(s, 'in-tree-after-removal').status).toBe('pass');
  });

  it('fails an RKE2 cluster set to 1.27 with cloud-provider-name aws: kubelets exit (rancher/rke2#4183)', () => {
    const s = snapshotWith((m) => {
      define(m, rke2Cluster('v1.27.16+rke2r1', { 'cloud-provider-name': 'aws' }));
    });
    const r = resultOf(s, 'in-tree-after-removal');
    expect(r.status).toBe('fail');
    expect(r.details).toContain(
      'Rancher cluster fleet-default/prod: control-plane nodes on v1.27.16+rke2r1: the kubelet exits (failed to run Kubelet: unknown cloud provider "aws"); RKE2 does not start and Rancher stops at the first node it upgrades (rancher/rke2#4183)',
    );
    // The fix is an action: the version back to what the nodes run, then the migration with the hop.
    expect(r.status === 'fail' && r.fixes[0]).toEqual({
      type: 'config',
      description: expect.stringContaining('set the cluster back to v1.26.15+rke2r1'),
      target: 'Rancher cluster fleet-default/prod (spec.kubernetesVersion)',
      snippet: 'spec:\n  kubernetesVersion: v1.26.15+rke2r1\n',
      commands: [
        `kubectl --context <rancher-context> -n fleet-default patch clusters.provisioning.cattle.io prod --type merge -p '{"spec":{"kubernetesVersion":"v1.26.15+rke2r1"}}'`,
      ],
    });
    expect(r.status === 'fail' && r.fixes[1]).toMatchObject({
      type: 'commands',
      commands: ['uproot preflight --target-version 1.27', 'uproot migrate --target-version 1.27'],
    });
  });

  it('passes RKE2 1.27 when every component is external (Rancher docs’ per-role args win over the name)', () => {
    const s = snapshotWith((m) => {
      define(
        m,
        rke2Cluster('v1.27.16+rke2r1', {
          'cloud-provider-name': 'aws',
          'kubelet-arg': ['cloud-provider=external'],
          'kube-controller-manager-arg': ['cloud-provider=external'],
        }),
      );
    });
    expect(resultOf(s, 'in-tree-after-removal').status).toBe('pass');
  });

  it('passes RKE2 v1.29.11+ with cloud-provider-name aws: it only names nodes from then (rancher/rke2#7336)', () => {
    const s = snapshotWith((m) => {
      define(m, rke2Cluster('v1.29.11+rke2r1', { 'cloud-provider-name': 'aws' }));
    });
    expect(resultOf(s, 'in-tree-after-removal').status).toBe('pass');
  });

  it('fails running pods whose version refuses their flags: a 1.27 KCM on aws, a 1.33 apiserver on --cloud-provider', () => {
    const s = snapshotWith((m) => {
      const pods = okValue(m.kube.componentPods);
      pods[0]!.image = 'registry.k8s.io/kube-controller-manager:v1.27.16';
      pods.push({
        namespace: 'kube-system',
        name: 'kube-apiserver-cp-1',
        component: 'kube-apiserver',
        nodeName: 'cp-1',
        image: 'registry.k8s.io/kube-apiserver:v1.33.1',
        args: ['kube-apiserver', '--cloud-provider=external'],
      });
    });
    const r = resultOf(s, 'in-tree-after-removal');
    expect(r.status).toBe('fail');
    expect(r.details).toEqual([
      expect.stringMatching(
        /^pod kube-system\/kube-controller-manager-\S+ \(v1\.27\.16\) exits once it leads: cloud provider could not be initialized: unknown cloud provider "aws"$/,
      ),
      'pod kube-system/kube-apiserver-cp-1 (v1.33.1) exits at start: unknown flag: --cloud-provider',
    ]);
    expect(r.resources.map((x) => x.kind)).toEqual(['Pod', 'Pod']);
  });

  it('fails an RKE cluster.yml at 1.27 with cloud_provider aws: rke up refuses it', () => {
    const s = snapshotWith((m) => {
      define(
        m,
        readClusterDefinition(
          {
            kubernetes_version: 'v1.27.16-rancher1-1',
            cloud_provider: { name: 'aws' },
            nodes: [{ address: '10.0.0.10', role: ['controlplane', 'etcd', 'worker'] }],
          },
          'cluster.yml',
        ),
      );
    });
    const r = resultOf(s, 'in-tree-after-removal');
    expect(r.details).toEqual([
      'cluster.yml: rke up refuses it: Cloud provider aws is invalid for [v1.27.16-rancher1-1]',
    ]);
  });
});
