import { afterEach, describe, expect, it } from 'vitest';
import { harness, node, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** What a kubelet that stopped reporting leaves behind: Ready Unknown. */
function markNotReady(t: Harness, name: string): void {
  t.cluster.api.store.patch(
    'nodes',
    undefined,
    name,
    'strategic',
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'Unknown',
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
        ],
      },
    },
    { subresource: 'status' },
  );
}

describe('cloud-node-lifecycle', () => {
  it('deletes the Node of a terminated instance and taints the Node of a stopped one', async () => {
    h = await harness();
    const t = h;
    const [gone, stopped, healthy] = t.cluster.nodes.filter((n) => !n.controlPlane);
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    await t.advance(10_000);

    t.cluster.aws.state.terminateInstance(gone!.instanceId);
    t.cluster.aws.state.ec2.stop([stopped!.instanceId]);
    markNotReady(t, gone!.name);
    markNotReady(t, stopped!.name);
    await t.until(() => node(t, gone!.name) === undefined, 30_000);

    const deleting = t.events(gone!.name).find((e) => e.reason === 'DeletingNode');
    expect(deleting?.message).toBe(
      `Deleting node ${gone!.name} because it does not exist in the cloud provider`,
    );
    const deletion = t.ledger.entries.find((e) => e.action === `kube:delete node/${gone!.name}`);
    expect(deletion).toMatchObject({
      controller: 'cloud-node-lifecycle',
      component: 'cloud-controller-manager',
    });

    await t.until(
      () =>
        ((node(t, stopped!.name) as { spec?: { taints?: { key: string }[] } }).spec?.taints ?? []).some(
          (x) => x.key === 'node.cloudprovider.kubernetes.io/shutdown',
        ),
      30_000,
    );
    // A Ready node is never looked up, whatever its instance does.
    expect(node(t, healthy!.name)).toBeDefined();
  });
});
