import { describe, expect, it } from 'vitest';
import { UprootError } from 'uproot';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { distroVersion } from '../layout/versions.js';
import { kubeletNodeName } from '../nodes/node-name.js';
import { machineFor, parseRkeClusterYaml } from './rke-cluster-config.js';
import { rkeHostTaints, rkeNodeConfig } from './rke-node-config.js';

const inst: InstanceLayout = {
  index: 0,
  role: 'control-plane',
  roles: ['etcd', 'control-plane'],
  instanceId: 'i-0123456789abcdef0',
  privateIp: '10.0.0.10',
  privateDnsName: 'ip-10-0-0-10.ec2.internal',
  availabilityZone: 'us-east-1a',
  subnetIndex: 0,
  instanceType: 'm5.large',
  hostname: 'ip-10-0-0-10.ec2.internal',
  imdsHostname: 'ip-10-0-0-10.ec2.internal',
  imdsLocalHostname: 'ip-10-0-0-10.ec2.internal',
  machineName: 'demo-cp-0',
};
const version = distroVersion('rke', 'v1.26.15-rancher1-1');

function config(yaml: string) {
  const cluster = parseRkeClusterYaml(yaml, 'cluster.yml');
  const entry = cluster.nodes[0]!;
  expect(machineFor(entry, [inst])).toBe(inst);
  return rkeNodeConfig(cluster, entry, inst, version);
}

const node = 'nodes:\n  - address: 10.0.0.10\n    role: [controlplane, etcd]\n';

describe('RKE cluster.yml → node configuration', () => {
  it('aws is the in-tree provider everywhere; extra_args reach the KCM', () => {
    const c = config(
      `${node}cloud_provider:\n  name: aws\nservices:\n  kube-controller:\n    extra_args:\n      enable-leader-migration: "true"\n`,
    );
    expect(c.kubelet.cloudProvider).toBe('aws');
    const kcm = c.staticPods.find((p) => p.component === 'kube-controller-manager')!;
    expect(kcm.args).toContain('--cloud-provider=aws');
    expect(kcm.args).toContain('--enable-leader-migration=true');
    expect(kcm.mirror).toBe(false);
    expect(c.labels).toMatchObject({
      'node-role.kubernetes.io/controlplane': 'true',
      'node-role.kubernetes.io/etcd': 'true',
    });
  });

  it('external-aws with useInstanceMetadataHostname names nodes from instance metadata', () => {
    const c = config(`${node}cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: true\n`);
    expect(c.kubelet.cloudProvider).toBe('external');
    expect(kubeletNodeName(c.kubelet, inst)).toBe('ip-10-0-0-10.ec2.internal');
  });

  it('external-aws without it uses the hostname override, by default the address', () => {
    const c = config(`${node}cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: false\n`);
    expect(kubeletNodeName(c.kubelet, inst)).toBe('10.0.0.10');
  });

  it("reads Rancher's rancher_kubernetes_engine_config form", () => {
    const c = config(`${node}rancher_kubernetes_engine_config:\n  cloud_provider:\n    name: external-aws\n`);
    expect(c.kubelet.cloudProvider).toBe('external');
  });

  it('a controlplane host that is not a worker registers with the controlplane taint; rke up adds the etcd one', () => {
    const c = config(`${node}cloud_provider:\n  name: aws\n`);
    expect(c.taints).toEqual([
      { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
    ]);
    expect(rkeHostTaints(['controlplane', 'etcd'])).toEqual([
      { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
      { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
    ]);
    expect(rkeHostTaints(['etcd'])).toEqual([
      { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
    ]);
    expect(rkeHostTaints(['controlplane', 'etcd', 'worker'])).toEqual([]);
    expect(rkeHostTaints(['worker'])).toEqual([]);
  });

  it('locates a bad extra_args', () => {
    try {
      parseRkeClusterYaml(`${node}services:\n  kubelet:\n    extra_args: [a]\n`, 'cluster.yml');
      expect.unreachable();
    } catch (error) {
      expect(UprootError.is(error) && error.location?.field).toBe('services.kubelet.extra_args');
    }
  });
});
