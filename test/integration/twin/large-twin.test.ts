import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { nodes, startHarness, type TwinHarness } from './support.js';

describe('a 1,000-node rke2-intree twin', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('starts with every node registered, Ready and initialized, and kubectl pages through them', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke2-intree', clock, { nodes: 1000 });
    await clock.advanceBy(20_000);
    const status = harness.twin.status();
    expect(status.nodes).toMatchObject({
      machines: 1000,
      registered: 1000,
      ready: 1000,
      withProviderId: 1000,
      uninitialized: 0,
    });
    expect(
      nodes(harness.twin).filter((n) =>
        n.taints.some((t) => t.key === 'node-role.kubernetes.io/control-plane'),
      ),
    ).toHaveLength(3);
    const listed = await harness.kubectl(['get', 'nodes', '--no-headers']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1000);
    // The EBS CSI node plugin runs everywhere, as a DaemonSet does.
    const ds = harness.twin.downstream.store.get('apps/v1/daemonsets', 'kube-system', 'ebs-csi-node');
    expect(ds?.status).toMatchObject({
      desiredNumberScheduled: 1000,
      numberReady: 1000,
      updatedNumberScheduled: 1000,
    });
  });
});
