import { describe, expect, it } from 'vitest';
import { seededRandom } from 'uproot';
import { parseAwsSeed } from '../../aws/index.js';
import { parseScenario } from '../../scenarios/index.js';
import { buildAwsSeed, clusterTagKey, planSeedIds } from './aws-seed.js';
import { planClusterLayout } from './cluster-layout.js';

const base = { name: 'x', description: 'd', distribution: 'rke2' } as const;

describe('cluster layout', () => {
  it('is deterministic for a seed and spreads nodes over the zones', () => {
    const scenario = parseScenario(base);
    const a = planClusterLayout(scenario, seededRandom(3));
    const b = planClusterLayout(scenario, seededRandom(3));
    expect(a).toEqual(b);
    expect(a.instances).toHaveLength(6);
    expect(new Set(a.instances.map((i) => i.availabilityZone))).toEqual(
      new Set(['us-east-1a', 'us-east-1b', 'us-east-1c']),
    );
    expect(a.instances.filter((i) => i.role === 'control-plane')).toHaveLength(3);
    expect(a.instances[0]!.privateDnsName).toBe(
      `ip-${a.instances[0]!.privateIp.replace(/\./g, '-')}.ec2.internal`,
    );
  });

  it.each([
    ['ip-dns', (dns: string) => dns, (dns: string) => dns],
    ['short-hostname', (dns: string) => dns.split('.')[0]!, (dns: string) => dns],
    [
      'custom-dhcp-domain',
      (dns: string) => `${dns.split('.')[0]}.corp.example.com`,
      (dns: string) => `${dns.split('.')[0]}.corp.example.com`,
    ],
  ] as const)('%s naming: hostname and instance metadata', (mode, hostname, imds) => {
    const layout = planClusterLayout(parseScenario({ ...base, naming: { mode } }), seededRandom(1));
    const i = layout.instances[0]!;
    expect(i.privateDnsName).toMatch(/\.ec2\.internal$/);
    expect(i.hostname).toBe(hostname(i.privateDnsName));
    expect(i.imdsLocalHostname).toBe(imds(i.privateDnsName));
  });

  it('keeps etcd on the control-plane machines, or gives it a pool of its own', () => {
    const combined = planClusterLayout(parseScenario(base), seededRandom(3));
    expect(combined.instances.map((i) => i.roles.join('+'))).toEqual([
      ...Array<string>(3).fill('etcd+control-plane'),
      ...Array<string>(3).fill('worker'),
    ]);
    const separate = planClusterLayout(
      parseScenario({ ...base, nodes: { controlPlane: 2, etcd: 3, workers: 3 } }),
      seededRandom(3),
    );
    expect(separate.instances.map((i) => `${i.role}:${i.roles.join('+')}`)).toEqual([
      'control-plane:control-plane',
      'control-plane:control-plane',
      'etcd:etcd',
      'etcd:etcd',
      'etcd:etcd',
      'worker:worker',
      'worker:worker',
      'worker:worker',
    ]);
    expect(separate.instances.map((i) => i.machineName.replace(/-[0-9a-f]{5}-/, '-x-'))).toEqual([
      'sandbox-cp-x-0',
      'sandbox-cp-x-1',
      'sandbox-etcd-x-0',
      'sandbox-etcd-x-1',
      'sandbox-etcd-x-2',
      'sandbox-worker-x-0',
      'sandbox-worker-x-1',
      'sandbox-worker-x-2',
    ]);
    // The same seed gives the combined layout's first machines the same addresses and ids.
    expect(separate.instances[0]!.instanceId).toBe(combined.instances[0]!.instanceId);
  });

  it('resource-name naming uses the instance id', () => {
    const i = planClusterLayout(
      parseScenario({ ...base, naming: { mode: 'resource-name' }, aws: { region: 'eu-west-1' } }),
      seededRandom(1),
    ).instances[0]!;
    expect(i.privateDnsName).toBe(`${i.instanceId}.eu-west-1.compute.internal`);
  });
});

describe('the AWS seed of a scenario', () => {
  it('is a valid emulator seed with cluster tags, seed 004 roles and one instance per node', () => {
    const scenario = parseScenario(base);
    const layout = planClusterLayout(scenario, seededRandom(1));
    const seed = parseAwsSeed(buildAwsSeed(scenario, layout, planSeedIds(layout, seededRandom(2))));
    expect(seed.instances).toHaveLength(6);
    expect(seed.instances.every((i) => i.tags[clusterTagKey('sandbox')] === 'owned')).toBe(true);
    expect(seed.subnets.every((s) => s.tags['kubernetes.io/role/elb'] === '1')).toBe(true);
    expect(seed.roles.map((r) => r.name)).toEqual(['sandbox-control-plane', 'sandbox-worker']);
    expect(seed.instances.filter((i) => i.iamInstanceProfile === 'sandbox-control-plane')).toHaveLength(3);
    expect(seed.enforceIam).toBe(true);
  });

  it("gives dedicated etcd machines seed 004's etcd/worker profile", () => {
    const scenario = parseScenario({ ...base, nodes: { controlPlane: 2, etcd: 3, workers: 1 } });
    const layout = planClusterLayout(scenario, seededRandom(1));
    const seed = parseAwsSeed(buildAwsSeed(scenario, layout, planSeedIds(layout, seededRandom(2))));
    expect(seed.instances.map((i) => i.iamInstanceProfile)).toEqual([
      'sandbox-control-plane',
      'sandbox-control-plane',
      'sandbox-worker',
      'sandbox-worker',
      'sandbox-worker',
      'sandbox-worker',
    ]);
  });

  it("applies the scenario's defects", () => {
    const scenario = parseScenario({
      ...base,
      defects: { clusterTagMissingOn: ['instances', 'subnets'], secondTaggedSecurityGroup: true },
      iam: { controlPlaneMissingActions: ['elasticloadbalancing:CreateLoadBalancer'] },
    });
    const layout = planClusterLayout(scenario, seededRandom(1));
    const seed = parseAwsSeed(buildAwsSeed(scenario, layout, planSeedIds(layout, seededRandom(2))));
    expect(seed.instances.some((i) => clusterTagKey('sandbox') in i.tags)).toBe(false);
    expect(seed.subnets.some((s) => clusterTagKey('sandbox') in s.tags)).toBe(false);
    expect(seed.instances[0]!.securityGroupIds).toHaveLength(2);
    expect(seed.securityGroups.filter((g) => g.tags[clusterTagKey('sandbox')] === 'owned')).toHaveLength(2);
    const cpPolicy = JSON.stringify(
      seed.managedPolicies.find((p) => p.name === 'sandbox-control-plane-policy')!.document,
    );
    expect(cpPolicy).not.toContain('elasticloadbalancing:CreateLoadBalancer"');
    expect(cpPolicy).toContain('ec2:DescribeInstances');
  });
});
