import { afterEach, describe, expect, it } from 'vitest';
import { analyzeLedger } from '../../../packages/uproot/src/core/ownership/index.js';
import { loadBalancerService } from '../../../packages/sandbox/src/rehearsal/cluster-objects.js';
import { harness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const hostnameOf = (t: Harness, ns: string, name: string): string | undefined =>
  (
    t.cluster.api.store.get('services', ns, name) as
      { status?: { loadBalancer?: { ingress?: { hostname?: string }[] } } } | undefined
  )?.status?.loadBalancer?.ingress?.[0]?.hostname;

describe('service controller across a KCM → CCM handover', () => {
  it('creates the ELB under the in-tree KCM and the CCM adopts it: same hostname, no second load balancer', async () => {
    h = await harness({ loadBalancers: 0 });
    const t = h;
    const svc = loadBalancerService('default', 'shop', 80);
    delete (svc.metadata as { finalizers?: string[] }).finalizers;
    t.cluster.api.store.create('services', svc);
    const nlb = loadBalancerService('default', 'api', 443, {
      'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb',
    });
    delete (nlb.metadata as { finalizers?: string[] }).finalizers;
    t.cluster.api.store.create('services', nlb);
    const [cp0, cp1] = t.cluster.nodes;

    // As kubeadm and RKE2 run it: controllers act through their own service accounts.
    const kcmArgs = ['--use-service-account-credentials=true'];
    const kcm = t.start(
      'kube-controller-manager',
      cp0!,
      [...kcmArgs, '--cloud-provider=aws', '--enable-leader-migration'],
      '1.26',
    );
    await t.until(
      () => hostnameOf(t, 'default', 'shop') !== undefined && hostnameOf(t, 'default', 'api') !== undefined,
      60_000,
    );
    const hostname = hostnameOf(t, 'default', 'shop')!;
    const nlbHostname = hostnameOf(t, 'default', 'api')!;
    expect(hostname).toMatch(/^a[0-9a-f]{31}-\d+\.us-east-1\.elb\.amazonaws\.com$/);
    expect(t.cluster.aws.state.elb.list()).toHaveLength(1);
    expect(t.cluster.aws.state.elb.list()[0]!.instanceIds).toHaveLength(t.cluster.nodes.length);
    expect(t.cluster.aws.state.elbv2.loadBalancers()).toHaveLength(1);
    const finalizers = (
      t.cluster.api.store.get('services', 'default', 'shop')!.metadata as { finalizers?: string[] }
    ).finalizers;
    expect(finalizers).toContain('service.kubernetes.io/load-balancer-cleanup');

    // Seed 003: the CCM joins with migration on; the old KCM goes and a KCM with --cloud-provider=external
    // (no migration) replaces it. The migration lease moves to the CCM once it expires.
    const ccm = t.start(
      'cloud-controller-manager',
      cp1!,
      ['--cloud-provider=aws', '--enable-leader-migration'],
      '1.27',
    );
    await t.advance(5_000);
    await kcm.stop();
    t.start('kube-controller-manager', cp0!, [...kcmArgs, '--cloud-provider=external'], '1.27');
    await t.until(() => ccm.runningControllers().includes('service'), 60_000);
    await t.until(
      () =>
        t.ledger.entries.filter(
          (e) => e.identity === ccm.identity && e.action.includes('adopted load balancer'),
        ).length >= 2,
      30_000,
    );

    expect(hostnameOf(t, 'default', 'shop')).toBe(hostname);
    expect(hostnameOf(t, 'default', 'api')).toBe(nlbHostname);
    expect(t.cluster.aws.state.elb.list()).toHaveLength(1);
    const ccmWrites = t.ledger.entries.filter(
      (e) => e.identity === ccm.identity && e.action.startsWith('aws:Create'),
    );
    expect(ccmWrites).toEqual([]);
    const report = analyzeLedger(t.ledger.entries, { window: { from: 0, to: t.clock.now() } });
    expect(report.controllers.service).toMatchObject({ state: 'running', overlapSeconds: 0 });
    expect(report.strayActions).toEqual([]);
  });

  it('deletes the load balancer when the Service is deleted, then releases its finalizer', async () => {
    h = await harness({ loadBalancers: 1 });
    const t = h;
    const [svc] = t.cluster.services;
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    await t.advance(5_000);
    t.cluster.api.store.delete('services', svc!.namespace, svc!.name);
    await t.until(() => t.cluster.api.store.get('services', svc!.namespace, svc!.name) === undefined, 60_000);
    expect(t.cluster.aws.state.elb.get(svc!.loadBalancerName)).toBeUndefined();
    expect(t.events(svc!.name).map((e) => e.reason)).toEqual(
      expect.arrayContaining(['DeletingLoadBalancer', 'DeletedLoadBalancer']),
    );
  });

  it('tears the load balancer down when the Service changes type', async () => {
    h = await harness({ loadBalancers: 1 });
    const t = h;
    const [svc] = t.cluster.services;
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    await t.advance(5_000);
    t.cluster.api.store.patch('services', svc!.namespace, svc!.name, 'merge', {
      spec: { type: 'ClusterIP' },
    });
    await t.until(() => t.cluster.aws.state.elb.get(svc!.loadBalancerName) === undefined, 60_000);
    await t.advance(5_000);
    const after = t.cluster.api.store.get('services', svc!.namespace, svc!.name) as {
      metadata: { finalizers?: string[] };
      status?: { loadBalancer?: { ingress?: unknown[] } };
    };
    expect(after.metadata.finalizers ?? []).not.toContain('service.kubernetes.io/load-balancer-cleanup');
    expect(after.status?.loadBalancer?.ingress ?? []).toEqual([]);
    // Its own security group goes with it.
    expect(
      t.cluster.aws.state.ec2.securityGroups.findByName(
        t.cluster.aws.state.ec2.vpcs()[0]!.id,
        `k8s-elb-${svc!.loadBalancerName}`,
      ),
    ).toBeUndefined();
  });

  it('reports "no ClusterID found" on the Service when the manager\u2019s instance has no cluster tag', async () => {
    h = await harness({ loadBalancers: 1 });
    const t = h;
    const cp = t.cluster.nodes[0]!;
    t.cluster.aws.state.ec2.deleteTags(
      [cp.instanceId],
      [{ key: `kubernetes.io/cluster/${t.cluster.clusterId}` }],
    );
    t.start('cloud-controller-manager', cp, ['--cloud-provider=aws'], '1.27');
    const [svc] = t.cluster.services;
    await t.until(() => t.events(svc!.name).some((e) => e.reason === 'SyncLoadBalancerFailed'), 30_000);
    const failed = t.events(svc!.name).find((e) => e.reason === 'SyncLoadBalancerFailed');
    expect(failed).toMatchObject({
      type: 'Warning',
      message:
        'Error syncing load balancer: no ClusterID found.  A ClusterID is required for the cloud provider to function properly.  This check can be bypassed by setting the allow-untagged-cloud option',
      source: { component: 'service-controller' },
    });
  });

  it('reports two cluster-tagged security groups on an instance, as cloud-provider-aws does', async () => {
    h = await harness({ loadBalancers: 1 });
    const t = h;
    const ec2 = t.cluster.aws.state.ec2;
    const worker = t.cluster.nodes.find((n) => !n.controlPlane)!;
    const extra = ec2.securityGroups.create({
      name: 'hand-tagged',
      description: 'tagged by hand',
      vpcId: ec2.vpcs()[0]!.id,
      tags: { [`kubernetes.io/cluster/${t.cluster.clusterId}`]: 'owned' },
    });
    const current = ec2.instance(worker.instanceId)!.securityGroupIds;
    ec2.instances.setSecurityGroups(worker.instanceId, [...current, extra.id]);
    t.start('cloud-controller-manager', t.cluster.nodes[0]!, ['--cloud-provider=aws'], '1.27');
    const [svc] = t.cluster.services;
    await t.until(() => t.events(svc!.name).some((e) => e.reason === 'SyncLoadBalancerFailed'), 30_000);
    const failed = t.events(svc!.name).find((e) => e.reason === 'SyncLoadBalancerFailed');
    expect(String(failed?.message)).toMatch(
      new RegExp(
        `^Error syncing load balancer: Multiple tagged security groups found for instance ${worker.instanceId}; ensure only the k8s security group is tagged; the tagged groups were sg-\\w+\\(default\\) ${extra.id}\\(hand-tagged\\) $`,
      ),
    );
    // The hostname the Service had is left alone.
    expect(t.cluster.aws.state.elb.get(svc!.loadBalancerName)?.dnsName).toBe(svc!.hostname);
  });
});
