import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// k8s.io/cloud-provider plugins.go InitCloudProvider, wrapped by kube-controller-manager's createCloudProvider
// (cmd/kube-controller-manager/app/cloudproviders.go); logged by `run` in controllermanager.go.
const ERROR = 'cloud provider could not be initialized: unknown cloud provider "aws"';

function lease(t: Harness): { holderIdentity?: string } | undefined {
  return t.cluster.api.store.get('leases', 'kube-system', 'kube-controller-manager')?.spec as
    { holderIdentity?: string } | undefined;
}

describe('a 1.27 kube-controller-manager still on --cloud-provider=aws', () => {
  it('campaigns, wins the lease, then exits 1 building its controller context; standbys stay up', async () => {
    h = await harness();
    const t = h;
    const [a, b] = [t.cluster.nodes[0]!, t.cluster.nodes[1]!];
    const first = t.start('kube-controller-manager', a, ['--cloud-provider=aws'], '1.27');
    await t.until(() => !first.running, 30_000);
    expect(await first.exited).toEqual({ code: 1, reason: ERROR });
    expect(first.logs).toContain(`"Error building controller context" err="${ERROR.replace(/"/g, '\\"')}"`);
    // It led before it died, and died without releasing the lease (klog.FlushAndExit).
    expect(lease(t)?.holderIdentity).toBe(first.identity);
    expect(t.ledger.entries).toEqual([]);

    // A second one waits as a healthy standby until the dead leader's lease expires, then dies the same way.
    const second = t.start('kube-controller-manager', b, ['--cloud-provider=aws'], '1.27');
    await t.advance(5_000);
    expect(second.running).toBe(true);
    await t.until(() => !second.running, 60_000);
    expect(await second.exited).toEqual({ code: 1, reason: ERROR });
    expect(lease(t)?.holderIdentity).toBe(second.identity);
    expect(t.ledger.entries).toEqual([]);
  });

  it('runs as before on 1.26', async () => {
    h = await harness();
    const t = h;
    const kcm = t.start('kube-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.26');
    await t.until(() => kcm.runningControllers().includes('service'), 30_000);
    expect(kcm.running).toBe(true);
  });
});
