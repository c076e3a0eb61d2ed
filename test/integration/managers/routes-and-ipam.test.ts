import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_ACCOUNT_IDS } from '../../../packages/sandbox/src/aws/index.js';
import { nodeObject, REHEARSAL_CLUSTER_CIDR } from '../../../packages/sandbox/src/rehearsal/index.js';
import { harness, node, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('nodeipam and route in an in-tree KCM', () => {
  it('gives a new node the next free pod CIDR and routes it to the node\u2019s instance', async () => {
    h = await harness({ routes: true });
    const t = h;
    const instance = t.cluster.aws.state.runInstance({
      subnetId: EMPTY_ACCOUNT_IDS.subnets[0],
      privateIpAddress: '10.0.0.150',
      securityGroupIds: [EMPTY_ACCOUNT_IDS.securityGroup],
      tags: { [`kubernetes.io/cluster/${t.cluster.clusterId}`]: 'owned' },
    });
    const name = instance.privateDnsName;
    t.cluster.api.store.create(
      'nodes',
      nodeObject({
        name,
        instanceId: instance.id,
        zone: instance.availabilityZone,
        privateIp: instance.privateIpAddress,
        instanceType: instance.instanceType,
        controlPlane: false,
        kubeletVersion: 'v1.26.15',
        initialized: true,
      }),
    );
    t.start(
      'kube-controller-manager',
      t.cluster.nodes[0]!,
      [
        '--cloud-provider=aws',
        '--use-service-account-credentials=true',
        '--allocate-node-cidrs=true',
        `--cluster-cidr=${REHEARSAL_CLUSTER_CIDR}`,
        '--configure-cloud-routes=true',
      ],
      '1.26',
    );
    type N = {
      spec?: { podCIDR?: string };
      status?: { conditions?: { type: string; status: string; reason?: string }[] };
    };
    await t.until(() => (node(t, name) as N).spec?.podCIDR !== undefined, 30_000);
    // Six nodes hold 10.42.0.0/24 … 10.42.5.0/24.
    expect((node(t, name) as N).spec?.podCIDR).toBe('10.42.6.0/24');
    await t.until(
      () =>
        ((node(t, name) as N).status?.conditions ?? []).some(
          (c) => c.type === 'NetworkUnavailable' && c.status === 'False',
        ),
      30_000,
    );
    const route = t.ledger.entries.find((e) => e.controller === 'route' && /CreateRoute/.test(e.action));
    expect(route?.action).toMatch(
      new RegExp(
        `^aws(-intended)?:CreateRoute ${EMPTY_ACCOUNT_IDS.routeTable} 10\\.42\\.6\\.0/24 -> ${instance.id}`,
      ),
    );
    expect(
      t.ledger.entries.some(
        (e) => e.controller === 'nodeipam' && e.action === `kube:update node/${name} (podCIDR 10.42.6.0/24)`,
      ),
    ).toBe(true);
    // Routes the in-tree provider made for the other nodes are recognised: nothing else is created or deleted.
    expect(t.ledger.entries.filter((e) => /Route /.test(e.action))).toHaveLength(1);
  });
});
