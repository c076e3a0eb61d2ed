import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import type { RkeDefinition } from '../model/cluster-definition.js';

function rke(m: MutableSnapshot, def: Partial<RkeDefinition>): void {
  m.kube.clusterDefinition = {
    state: 'ok',
    value: {
      distro: 'rke',
      source: 'cluster.yml',
      nodes: [{ address: '10.0.0.10', roles: ['controlplane'] }],
      kcmExtraArgs: {},
      ...structuredClone(def),
    } as never,
  };
}

describe('node-name-settings', () => {
  it('passes RKE2 nodes started with cloud-provider-name aws (rke2.io/node-args)', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'node-name-settings',
      ),
    ).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('names nodes from instance metadata'),
    });
  });

  it('warns RKE2 without cloud-provider-name aws or node-name', () => {
    const s = snapshotWith((m) =>
      okValue(m.kube.nodes).forEach((n) => (n.annotations['rke2.io/node-args'] = '["server"]')),
    );
    expect(resultOf(s, 'node-name-settings')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('named by hostname'),
    });
  });

  it('warns RKE2 nodes that disagree', () => {
    const s = snapshotWith(
      (m) =>
        (okValue(m.kube.nodes)[0]!.annotations['rke2.io/node-args'] =
          '["server","--cloud-provider-name","external"]'),
    );
    expect(resultOf(s, 'node-name-settings').message).toContain(
      'disagree on cloud-provider-name (aws, external)',
    );
  });

  it('fails RKE useInstanceMetadataHostname together with hostname_override', () => {
    const s = snapshotWith((m) =>
      rke(m, {
        cloudProviderName: 'external-aws',
        useInstanceMetadataHostname: true,
        nodes: [{ address: '10.0.0.10', hostnameOverride: 'cp-1', roles: ['controlplane'] }],
      }),
    );
    expect(resultOf(s, 'node-name-settings')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('do not combine them'),
    });
  });

  it('fails RKE external-aws without useInstanceMetadataHostname, passes with it', () => {
    const bare = snapshotWith((m) => rke(m, { cloudProviderName: 'external-aws' }));
    expect(resultOf(bare, 'node-name-settings')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('register as new Nodes'),
    });
    const good = snapshotWith((m) =>
      rke(m, { cloudProviderName: 'external-aws', useInstanceMetadataHostname: true }),
    );
    expect(resultOf(good, 'node-name-settings').status).toBe('pass');
    const inTree = snapshotWith((m) => rke(m, { cloudProviderName: 'aws' }));
    expect(resultOf(inTree, 'node-name-settings').message).toContain('set useInstanceMetadataHostname: true');
  });

  it('skips clusters whose settings are not visible', () => {
    const s = snapshotWith((m) =>
      okValue(m.kube.nodes).forEach((n) => {
        n.kubeletVersion = 'v1.26.15+k3s1';
        n.annotations = {};
      }),
    );
    expect(resultOf(s, 'node-name-settings').status).toBe('skip');
  });
});

const CUSTOM = 'corp.example.com';
const first = 'ip-10-0-0-10.us-west-2.compute.internal';

function dhcpDomain(m: MutableSnapshot, domainName: string | undefined): void {
  const facts = okValue(okValue(m.aws).vpcDhcp)[0]!;
  if (domainName === undefined) delete facts.domainName;
  else facts.domainName = domainName;
}

function kubeadm(m: MutableSnapshot): void {
  okValue(m.kube.nodes).forEach((n) => {
    n.kubeletVersion = 'v1.26.15';
    n.annotations = {};
  });
}

describe('node-name-settings: names after the switch to external', () => {
  it('fails RKE2 naming from instance metadata in a VPC with a custom DHCP domain, naming node and predicted name', () => {
    const r = resultOf(
      snapshotWith((m) => dhcpDomain(m, CUSTOM)),
      'node-name-settings',
    );
    expect(r.status).toBe('fail');
    expect(r.message).toContain(`6 of 6 nodes would register under names EC2 cannot resolve`);
    expect(r.message).toContain(`${first} would become ip-10-0-0-10.corp.example.com`);
    expect(r.message).toContain('predicted from');
    expect(r.message).toContain(
      'failed to get provider ID for node ip-10-0-0-10.corp.example.com: instance not found',
    );
    expect(r.resources).toHaveLength(6);
    expect(r.resources[0]).toEqual({ kind: 'Node', name: first });
    expect(r.details[0]).toBe(
      `${first} → ip-10-0-0-10.corp.example.com (RKE2 cloud-provider-name: aws: instance metadata local-hostname carries the VPC's DHCP domain corp.example.com); EC2 PrivateDnsName ${first}`,
    );
    if (r.status !== 'fail') return;
    expect(r.fixes[0]).toMatchObject({
      type: 'config',
      description: expect.stringContaining('set node-name on each machine'),
      snippet: expect.stringContaining(`node-name: ${first}`),
    });
    expect(r.fixes[1]).toMatchObject({
      type: 'manual',
      steps: expect.arrayContaining([
        'aws ec2 create-dhcp-options --dhcp-configurations "Key=domain-name,Values=us-west-2.compute.internal" "Key=domain-name-servers,Values=AmazonProvidedDNS"',
        expect.stringContaining('--vpc-id vpc-00000001'),
      ]),
    });
  });

  it('predicts the hostname fallback of RKE2 before the IMDSv2 fix on tokens-required instances', () => {
    const tokensRequired = (m: MutableSnapshot) => {
      for (const i of okValue(okValue(m.aws).instances))
        i.metadataOptions = { httpTokens: 'required', httpPutResponseHopLimit: 2, httpEndpoint: 'enabled' };
    };
    // No DHCP domain: instance metadata still names nodes after EC2, but `hostname -f` is short.
    const old = resultOf(
      snapshotWith((m) => {
        tokensRequired(m);
        dhcpDomain(m, undefined);
      }),
      'node-name-settings',
    );
    expect(old.status).toBe('fail');
    expect(old.details[0]).toContain(`${first} → ip-10-0-0-10 (`);
    expect(old.details[0]).toContain('falls back to hostname -f');
    const fixed = resultOf(
      snapshotWith((m) => {
        tokensRequired(m);
        dhcpDomain(m, undefined);
        okValue(m.kube.nodes).forEach((n) => (n.kubeletVersion = 'v1.29.11+rke2r1'));
      }),
      'node-name-settings',
    );
    expect(fixed.status).toBe('pass');
  });

  it("passes with the region's default DHCP domain, saying what it predicted", () => {
    const r = resultOf(
      snapshotWith(() => undefined),
      'node-name-settings',
    );
    expect(r).toMatchObject({
      status: 'pass',
      message: expect.stringContaining(
        'predicted names after the switch resolve to their instances for all 6 nodes (VPC DHCP domain us-west-2.compute.internal)',
      ),
    });
  });

  it('passes an explicit node-name that is the PrivateDnsName, and fails one that is not', () => {
    const named = (name: (dns: string) => string) =>
      snapshotWith((m) => {
        dhcpDomain(m, CUSTOM);
        for (const n of okValue(m.kube.nodes)) {
          n.annotations['rke2.io/node-args'] = JSON.stringify(['agent', '--node-name', name(n.name)]);
        }
      });
    expect(
      resultOf(
        named((dns) => dns),
        'node-name-settings',
      ).status,
    ).toBe('pass');
    const wrong = resultOf(
      named((dns) => dns.split('.')[0]!),
      'node-name-settings',
    );
    expect(wrong.status).toBe('fail');
    expect(wrong.details[0]).toBe(
      `${first} → ip-10-0-0-10 (RKE2 node-name (rke2.io/node-args)); EC2 PrivateDnsName ${first}`,
    );
  });

  it('skips with the reason when DescribeDhcpOptions was denied, or the DHCP options were not read', () => {
    const denied = snapshotWith(
      (m) =>
        (okValue(m.aws).vpcDhcp = {
          state: 'unavailable',
          reason: 'UnauthorizedOperation on ec2:DescribeDhcpOptions: You are not authorized',
        }),
    );
    expect(resultOf(denied, 'node-name-settings')).toMatchObject({
      status: 'skip',
      reason:
        'cannot predict the node names after the switch to external: UnauthorizedOperation on ec2:DescribeDhcpOptions: You are not authorized',
      details: expect.arrayContaining([expect.stringContaining('names nodes from instance metadata')]),
    });
    const unread = snapshotWith((m) => delete okValue(m.aws).vpcDhcp);
    expect(resultOf(unread, 'node-name-settings')).toMatchObject({
      status: 'skip',
      reason: expect.stringContaining('DHCP options were not read'),
    });
  });

  it('keeps a settings failure as it is, whatever the DHCP options', () => {
    const s = snapshotWith((m) => {
      dhcpDomain(m, CUSTOM);
      rke(m, { cloudProviderName: 'external-aws' });
    });
    expect(resultOf(s, 'node-name-settings').message).toContain('register as new Nodes');
  });

  it('predicts kubeadm names from the hostname: pass with the default domain, fail with a custom or no domain', () => {
    expect(resultOf(snapshotWith(kubeadm), 'node-name-settings').status).toBe('pass');
    const custom = resultOf(
      snapshotWith((m) => {
        kubeadm(m);
        dhcpDomain(m, `${CUSTOM} ec2.internal`);
      }),
      'node-name-settings',
    );
    expect(custom.status).toBe('fail');
    expect(custom.message).toContain('would become ip-10-0-0-10.corp.example.com');
    expect(custom.status === 'fail' && custom.fixes[0]).toMatchObject({
      type: 'manual',
      steps: expect.arrayContaining([expect.stringContaining(`--hostname-override=${first}`)]),
    });
    const short = resultOf(
      snapshotWith((m) => {
        kubeadm(m);
        dhcpDomain(m, undefined);
      }),
      'node-name-settings',
    );
    expect(short.details[0]).toContain(`${first} → ip-10-0-0-10 (kubeadm`);
    expect(short.details[0]).toContain('short because the VPC');
  });

  it("takes the kubelet's hostname label over the DHCP guess when it differs from the node name", () => {
    const s = snapshotWith((m) => {
      kubeadm(m);
      dhcpDomain(m, CUSTOM);
      for (const n of okValue(m.kube.nodes)) n.labels['kubernetes.io/hostname'] = n.name.split('.')[0]!;
    });
    const r = resultOf(s, 'node-name-settings');
    expect(r.details[0]).toBe(
      `${first} → ip-10-0-0-10 (kubeadm (no --hostname-override is visible to preflight): the kubelet's hostname (label kubernetes.io/hostname)); EC2 PrivateDnsName ${first}`,
    );
  });

  it('predicts RKE names: in-tree becomes useInstanceMetadataHostname; hostname_override is taken as set', () => {
    const inTree = resultOf(
      snapshotWith((m) => {
        dhcpDomain(m, CUSTOM);
        rke(m, { cloudProviderName: 'aws' });
      }),
      'node-name-settings',
    );
    expect(inTree.status).toBe('fail');
    expect(inTree.message).toContain("RKE external-aws with useInstanceMetadataHostname (uproot's plan)");
    expect(inTree.status === 'fail' && inTree.fixes[0]).toMatchObject({
      type: 'config',
      target: 'cluster.yml',
      snippet: expect.stringContaining(`hostname_override: ${first}`),
    });
    const overridden = snapshotWith((m) => {
      dhcpDomain(m, CUSTOM);
      rke(m, {
        cloudProviderName: 'external-aws',
        nodes: [{ address: '10.0.0.10', hostnameOverride: first, roles: ['controlplane'] }],
      });
    });
    expect(resultOf(overridden, 'node-name-settings').status).toBe('pass');
  });

  it('warns when resource names would carry a custom domain', () => {
    const s = snapshotWith((m) => {
      dhcpDomain(m, CUSTOM);
      for (const i of okValue(okValue(m.aws).instances))
        i.privateDnsName = `${i.instanceId}.us-west-2.compute.internal`;
      for (const n of okValue(m.kube.nodes)) {
        n.name = n.providerID!.split('/').pop()!;
      }
    });
    const r = resultOf(s, 'node-name-settings');
    expect(r.status).toBe('warn');
    expect(r.details[0]).toContain('InvalidInstanceID.Malformed');
  });

  it('does not judge names that do not change (node-names judges those)', () => {
    const s = snapshotWith((m) => {
      dhcpDomain(m, CUSTOM);
      for (const n of okValue(m.kube.nodes)) {
        n.annotations['rke2.io/node-args'] = '["agent","--cloud-provider-name","external"]';
        n.name = n.name.replace('us-west-2.compute.internal', CUSTOM);
      }
    });
    expect(resultOf(s, 'node-name-settings')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('named by hostname'),
    });
  });
});
