import { afterEach, describe, expect, it } from 'vitest';
import { nodeObject } from '../../../packages/sandbox/src/rehearsal/cluster-objects.js';
import { EMPTY_ACCOUNT_IDS } from '../../../packages/sandbox/src/aws/index.js';
import { harness, node, type Harness } from './harness.js';

const TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Launches an instance in the cluster and registers a Node for it as an external kubelet would (tainted). */
function addUninitializedNode(t: Harness, name: string, ip: string, launch = true): string {
  const instance = launch
    ? t.cluster.aws.state.runInstance({
        subnetId: EMPTY_ACCOUNT_IDS.subnets[0],
        privateIpAddress: ip,
        instanceType: 't3.large',
        securityGroupIds: [EMPTY_ACCOUNT_IDS.securityGroup],
        tags: { [`kubernetes.io/cluster/${t.cluster.clusterId}`]: 'owned' },
      })
    : undefined;
  t.cluster.api.store.create(
    'nodes',
    nodeObject({
      name: name.replace('{id}', instance?.id ?? ''),
      instanceId: instance?.id ?? '',
      zone: 'us-east-1a',
      privateIp: ip,
      instanceType: 't3.large',
      controlPlane: false,
      kubeletVersion: 'v1.27.16',
      initialized: false,
    }),
  );
  return instance?.id ?? '';
}

const taints = (n: unknown): string[] =>
  ((n as { spec?: { taints?: { key: string }[] } }).spec?.taints ?? []).map((t) => t.key);

describe('cloud-node in the CCM', () => {
  it('initializes a node found by its private DNS name: providerID, labels, addresses, taint gone', async () => {
    h = await harness();
    const id = addUninitializedNode(h, 'ip-10-0-0-200.ec2.internal', '10.0.0.200');
    const t = h;
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    await t.until(() => !taints(node(t, 'ip-10-0-0-200.ec2.internal')).includes(TAINT), 60_000);

    const n = node(t, 'ip-10-0-0-200.ec2.internal') as {
      spec: { providerID: string };
      metadata: { labels: Record<string, string> };
      status: { addresses: { type: string; address: string }[] };
    };
    expect(n.spec.providerID).toBe(`aws:///us-east-1a/${id}`);
    expect(n.metadata.labels).toMatchObject({
      'topology.kubernetes.io/zone': 'us-east-1a',
      'topology.kubernetes.io/region': 'us-east-1',
      'node.kubernetes.io/instance-type': 't3.large',
      'failure-domain.beta.kubernetes.io/zone': 'us-east-1a',
      'beta.kubernetes.io/instance-type': 't3.large',
    });
    expect(n.status.addresses).toContainEqual({ type: 'InternalIP', address: '10.0.0.200' });
    expect(n.status.addresses).toContainEqual({ type: 'InternalDNS', address: 'ip-10-0-0-200.ec2.internal' });
    expect(t.events('ip-10-0-0-200.ec2.internal').map((e) => e.reason)).toContain('Synced');
    const actions = t.ledger.entries.filter((e) => e.controller === 'cloud-node').map((e) => e.action);
    expect(actions.some((a) => a.startsWith('kube:update node/ip-10-0-0-200.ec2.internal (initialize'))).toBe(
      true,
    );
  });

  it('initializes resource-based names by instance id (the text before the first dot)', async () => {
    h = await harness();
    const t = h;
    const a = addUninitializedNode(t, '{id}', '10.0.0.201');
    const b = addUninitializedNode(t, '{id}.ec2.internal', '10.0.0.202');
    t.start('cloud-controller-manager', t.cluster.nodes[1]!, ['--cloud-provider=aws'], '1.28');
    await t.until(
      () => !taints(node(t, a)).includes(TAINT) && !taints(node(t, `${b}.ec2.internal`)).includes(TAINT),
      60_000,
    );
    expect((node(t, a) as { spec: { providerID: string } }).spec.providerID).toBe(`aws:///us-east-1a/${a}`);
    expect((node(t, `${b}.ec2.internal`) as { spec: { providerID: string } }).spec.providerID).toBe(
      `aws:///us-east-1a/${b}`,
    );
    // 1.28+ keys the controller by its canonical name.
    expect(
      t.ledger.entries.some((e) => e.controller === 'cloud-node-controller' && e.action === 'started'),
    ).toBe(true);
  });

  it('leaves a node EC2 cannot resolve tainted, with the real warning event', async () => {
    h = await harness();
    const t = h;
    addUninitializedNode(t, 'ip-10-0-0-203', '10.0.0.203');
    addUninitializedNode(t, 'i-01bc.aws.example.com', '10.0.0.204', false);
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    await t.until(
      () => t.events('ip-10-0-0-203').length > 0 && t.events('i-01bc.aws.example.com').length > 0,
      60_000,
    );
    await t.advance(30_000);

    expect(taints(node(t, 'ip-10-0-0-203'))).toContain(TAINT);
    const [short] = t.events('ip-10-0-0-203');
    expect(short).toMatchObject({
      type: 'Warning',
      reason: 'FailedToGetProviderID',
      message: 'failed to get provider ID for node ip-10-0-0-203: instance not found',
      source: { component: 'cloud-node-controller' },
    });
    // Retried with backoff: the same event is counted, not duplicated.
    expect(t.events('ip-10-0-0-203')).toHaveLength(1);
    expect(Number(short!.count)).toBeGreaterThan(1);

    const [malformed] = t.events('i-01bc.aws.example.com');
    expect(malformed?.type).toBe('Warning');
    expect(String(malformed?.message)).toMatch(
      /^failed to get provider ID for node i-01bc\.aws\.example\.com: InvalidInstanceID\.Malformed: Invalid id: "i-01bc"/,
    );
    expect(taints(node(t, 'i-01bc.aws.example.com'))).toContain(TAINT);
  });

  it('fails with the AWS error in the event when the node role lacks ec2:DescribeInstances', async () => {
    h = await harness({ enforceIam: true });
    const t = h;
    t.cluster.aws.state.iam.putRolePolicy(
      'uproot-control-plane',
      'cloud-provider',
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: ['ec2:DescribeRegions', 'elasticloadbalancing:*'], Resource: '*' },
        ],
      }),
    );
    addUninitializedNode(t, 'ip-10-0-0-205.ec2.internal', '10.0.0.205');
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    await t.until(() => t.events('ip-10-0-0-205.ec2.internal').length > 0, 60_000);
    const [event] = t.events('ip-10-0-0-205.ec2.internal');
    expect(event?.type).toBe('Warning');
    expect(String(event?.message)).toMatch(
      /^failed to get provider ID for node ip-10-0-0-205\.ec2\.internal: UnauthorizedOperation: You are not authorized to perform this operation/,
    );
    expect(taints(node(t, 'ip-10-0-0-205.ec2.internal'))).toContain(TAINT);
  });
});
