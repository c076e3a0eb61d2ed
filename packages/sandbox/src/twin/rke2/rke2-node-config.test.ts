import { describe, expect, it } from 'vitest';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { distroVersion } from '../layout/versions.js';
import { flagsOf } from '../nodes/node-config.js';
import { kubeletNodeName } from '../nodes/node-name.js';
import { mergeFlags, rke2NodeConfig } from './rke2-node-config.js';

/** A machine of the combined control-plane pool (etcd too), of the worker pool, or with the given roles. */
const instance = (
  role: InstanceLayout['role'],
  hostname = 'ip-10-0-0-10',
  roles: InstanceLayout['roles'] = role === 'control-plane' ? ['etcd', 'control-plane'] : [role],
): InstanceLayout => ({
  index: 0,
  role,
  roles,
  instanceId: 'i-0123456789abcdef0',
  privateIp: '10.0.0.10',
  privateDnsName: 'ip-10-0-0-10.ec2.internal',
  availabilityZone: 'us-east-1a',
  subnetIndex: 0,
  instanceType: 'm5.large',
  hostname,
  imdsHostname: 'ip-10-0-0-10.ec2.internal',
  imdsLocalHostname: 'ip-10-0-0-10.ec2.internal',
  machineName: 'demo-cp-0',
});
const version = distroVersion('rke2', 'v1.26.15+rke2r1');
const cp = { 'rke.cattle.io/control-plane-role': 'true' };
const role = (label: string) => ({ matchExpressions: [{ key: label, operator: 'In', values: ['true'] }] });

function kcmFlags(rkeConfig: unknown): string[] {
  const pod = rke2NodeConfig({ rkeConfig, instance: instance('control-plane'), version }).staticPods.find(
    (p) => p.component === 'kube-controller-manager',
  )!;
  return flagsOf(pod);
}

describe('RKE2 machine configuration → component flags', () => {
  it('cloud-provider-name: aws passes the in-tree flags and names the node from instance metadata', () => {
    const config = rke2NodeConfig({
      rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'aws' } },
      instance: instance('control-plane'),
      version,
    });
    expect(config.kubelet.cloudProvider).toBe('aws');
    expect(config.kubelet.hostnameOverride).toBe('ip-10-0-0-10.ec2.internal');
    expect(kcmFlags({ machineGlobalConfig: { 'cloud-provider-name': 'aws' } })).toContain(
      '--cloud-provider=aws',
    );
    expect(config.labels).toMatchObject({ 'node-role.kubernetes.io/control-plane': 'true', ...cp });
    // Rancher's taints for a combined etcd + control-plane machine: both, with no value.
    expect(config.taints).toEqual([
      { key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ]);
  });

  it.each<[InstanceLayout['roles'], string[], boolean]>([
    [['etcd'], ['node-role.kubernetes.io/etcd:NoExecute'], false],
    [['control-plane'], ['node-role.kubernetes.io/control-plane:NoSchedule'], true],
    [['etcd', 'control-plane', 'worker'], [], true],
    [['etcd', 'worker'], [], false],
    [['worker'], [], false],
  ])('a machine with roles %j registers with taints %j (control plane: %s)', (roles, taints, cp) => {
    const config = rke2NodeConfig({
      rkeConfig: {
        machineGlobalConfig: { 'cloud-provider-name': 'aws', 'node-taint': ['custom=1:NoSchedule'] },
      },
      instance: instance(roles.includes('control-plane') ? 'control-plane' : roles[0]!, 'h', roles),
      version,
    });
    expect(config.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`)).toEqual(taints);
    expect(config.staticPods.length > 0).toBe(cp);
    expect('node-role.kubernetes.io/control-plane' in config.labels).toBe(cp);
    expect('node-role.kubernetes.io/etcd' in config.labels).toBe(roles.includes('etcd'));
    expect(config.labels['rke.cattle.io/etcd-role']).toBe(roles.includes('etcd') ? 'true' : undefined);
  });

  it("seed 002 step 1 adds --enable-leader-migration to the control plane's KCM only", () => {
    const rkeConfig = {
      machineGlobalConfig: { 'cloud-provider-name': 'aws' },
      machineSelectorConfig: [
        {
          config: { 'kube-controller-manager-arg': ['enable-leader-migration'] },
          machineLabelSelector: role('rke.cattle.io/control-plane-role'),
        },
      ],
    };
    expect(kcmFlags(rkeConfig)).toContain('--enable-leader-migration=true');
    expect(rke2NodeConfig({ rkeConfig, instance: instance('worker'), version }).staticPods).toEqual([]);
  });

  it('seed 004 per-role overrides keep aws naming but run everything external', () => {
    const rkeConfig = {
      machineGlobalConfig: { 'cloud-provider-name': 'aws' },
      machineSelectorConfig: [
        {
          config: {
            'disable-cloud-controller': true,
            'kube-apiserver-arg': ['cloud-provider=external'],
            'kube-controller-manager-arg': ['cloud-provider=external'],
            'kubelet-arg': ['cloud-provider=external'],
          },
          machineLabelSelector: role('rke.cattle.io/control-plane-role'),
        },
      ],
    };
    const config = rke2NodeConfig({
      rkeConfig,
      instance: instance('control-plane', 'ip-10-0-0-10'),
      version,
    });
    expect(config.kubelet.cloudProvider).toBe('external');
    expect(kubeletNodeName(config.kubelet, instance('control-plane', 'ip-10-0-0-10'))).toBe(
      'ip-10-0-0-10.ec2.internal',
    );
    expect(kcmFlags(rkeConfig)).toContain('--cloud-provider=external');
    expect(kcmFlags(rkeConfig).filter((f) => f.startsWith('--cloud-provider='))).toHaveLength(1);
  });

  it('cloud-provider-name: external names the node after its hostname (short hostnames break here)', () => {
    const config = rke2NodeConfig({
      rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'external' } },
      instance: instance('worker', 'ip-10-0-0-10'),
      version,
    });
    expect(config.kubelet.cloudProvider).toBe('external');
    expect(kubeletNodeName(config.kubelet, instance('worker', 'ip-10-0-0-10'))).toBe('ip-10-0-0-10');
  });

  it('the in-tree kubelet names the node after EC2 whatever the hostname', () => {
    expect(kubeletNodeName({ cloudProvider: 'aws', hostnameOverride: 'whatever' }, instance('worker'))).toBe(
      'ip-10-0-0-10.ec2.internal',
    );
  });

  it('mergeFlags replaces flags of the same name and appends new ones', () => {
    expect(mergeFlags(['--a=1', '--b=2'], ['b=3', 'c', '--d=4'])).toEqual([
      '--a=1',
      '--b=3',
      '--c=true',
      '--d=4',
    ]);
  });
});

describe('RKE2 component flags by version', () => {
  const server = (global: Record<string, unknown>, raw: string) =>
    rke2NodeConfig({
      rkeConfig: { machineGlobalConfig: global },
      instance: instance('control-plane'),
      version: distroVersion('rke2', raw),
    });
  const podOf = (config: ReturnType<typeof server>, component: string) =>
    config.staticPods.find((p) => p.component === component);

  it('cloud-provider-name: aws configures the in-tree provider until the #7336 patches, then only names the node', () => {
    for (const raw of [
      'v1.27.16+rke2r1',
      'v1.28.15+rke2r1',
      'v1.29.10+rke2r1',
      'v1.30.6+rke2r1',
      'v1.31.2+rke2r1',
    ]) {
      const c = server({ 'cloud-provider-name': 'aws' }, raw);
      expect(c.kubelet.args, raw).toContain('--cloud-provider=aws');
      expect(flagsOf(podOf(c, 'kube-apiserver')!), raw).toContain('--cloud-provider=aws');
    }
    for (const raw of ['v1.29.11+rke2r1', 'v1.30.7+rke2r1', 'v1.31.3+rke2r1', 'v1.32.0+rke2r1']) {
      const c = server({ 'cloud-provider-name': 'aws' }, raw);
      expect(
        c.kubelet.args.some((a) => a.startsWith('--cloud-provider')),
        raw,
      ).toBe(false);
      expect(c.kubelet.hostnameOverride, raw).toBe('ip-10-0-0-10.ec2.internal');
      expect(
        flagsOf(podOf(c, 'kube-controller-manager')!).some((a) => a.startsWith('--cloud-provider')),
      ).toBe(false);
    }
  });

  it('stops passing --cloud-provider to the apiserver from 1.33, but user kube-apiserver-arg still reaches it', () => {
    const ext = { 'cloud-provider-name': 'external' };
    expect(flagsOf(podOf(server(ext, 'v1.32.4+rke2r1'), 'kube-apiserver')!)).toContain(
      '--cloud-provider=external',
    );
    expect(flagsOf(podOf(server(ext, 'v1.33.1+rke2r1'), 'kube-apiserver')!)).not.toContain(
      '--cloud-provider=external',
    );
    // Rancher's docs recommend this arg (rancher/rancher-docs#2281); on 1.33 it crashes the apiserver.
    const docs = { ...ext, 'kube-apiserver-arg': ['cloud-provider=external'] };
    expect(flagsOf(podOf(server(docs, 'v1.33.1+rke2r1'), 'kube-apiserver')!)).toContain(
      '--cloud-provider=external',
    );
  });

  it('runs the built-in cloud controller on servers per #10351: disabled by any provider name before 1.36', () => {
    const ccm = (global: Record<string, unknown>, raw: string) =>
      podOf(server(global, raw), 'cloud-controller-manager')?.image;
    expect(ccm({}, 'v1.35.3+rke2r1')).toMatch(/rancher\/rke2-cloud-provider:v1\.35\.3-/);
    expect(ccm({ 'cloud-provider-name': 'external' }, 'v1.35.3+rke2r1')).toBeUndefined();
    expect(ccm({ 'cloud-provider-name': 'aws' }, 'v1.35.3+rke2r1')).toBeUndefined();
    expect(ccm({ 'cloud-provider-name': 'external' }, 'v1.36.0+rke2r1')).toMatch(/rke2-cloud-provider/);
    expect(ccm({ 'cloud-provider-name': 'aws' }, 'v1.36.0+rke2r1')).toMatch(/rke2-cloud-provider/);
    expect(ccm({ 'cloud-provider-name': 'harvester' }, 'v1.36.0+rke2r1')).toBeUndefined();
    expect(
      ccm({ 'cloud-provider-name': 'external', 'disable-cloud-controller': true }, 'v1.36.0+rke2r1'),
    ).toBeUndefined();
    expect(
      ccm({ 'cloud-provider-name': 'external', 'disable-cloud-controller': 'true' }, 'v1.37.0+rke2r1'),
    ).toBeUndefined();
    // Workers never run it.
    const agent = rke2NodeConfig({
      rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'external' } },
      instance: instance('worker'),
      version: distroVersion('rke2', 'v1.36.0+rke2r1'),
    });
    expect(agent.staticPods).toEqual([]);
  });
});
