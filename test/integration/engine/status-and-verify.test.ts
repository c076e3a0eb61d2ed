import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { KubeObjects } from '../../../packages/uproot/src/adapters/kube/kube-objects.js';
import { status, watchStatus, type StatusReport } from '../../../packages/uproot/src/toolkit/status.js';
import { verify, type InstanceFact } from '../../../packages/uproot/src/toolkit/verify.js';
import { drive, type EngineSandbox } from './harness.js';
import { run, sandbox, sandboxes } from './migrate-harness.js';
import { autoRollOut } from './small-plan.js';

afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const host = (sb: EngineSandbox, signal?: AbortSignal) => ({
  cwd: sb.dir,
  env: {},
  interactive: false,
  ...(signal ? { signal } : {}),
});

describe('uproot status', () => {
  it('shows the journal, the next step, lease holders and the lock; falls back to the local copy', async () => {
    const sb = await sandbox();
    const first = await run(sb, { until: 'cordon-control-plane' });
    expect(first.exitCode).toBe(0);
    const objects = sb.objects();
    const report = await status({ stateDir: join(sb.dir, '.uproot') }, host(sb), {
      clock: sb.clock,
      connect: () => ({ downstream: objects }),
    });
    expect(report).toMatchObject({
      source: 'cluster',
      where: 'configmap kube-system/uproot-migration',
      cluster: { name: 'test', distro: 'kubeadm' },
      phase: { type: 'in-progress', step: 'install-ccm', state: 'pending' },
      next: { type: 'apply', step: 'install-ccm' },
    });
    expect(report.steps.map((s) => s.state)).toEqual(['verified', 'verified', 'pending', 'pending']);
    expect(report.leases).toContainEqual({
      name: 'kube-controller-manager',
      holder: 'cp-1_aaaa',
      renewedSecondsAgo: expect.any(Number),
    });
    expect(report.lock).toBeUndefined(); // released at the end of the run

    const down = new KubeObjects(
      new KubeClient(
        async () => {
          throw new Error('connect ECONNREFUSED');
        },
        { clock: sb.clock, attempts: 1 },
      ),
    );
    const offline = await status({ stateDir: join(sb.dir, '.uproot') }, host(sb), {
      clock: sb.clock,
      connect: () => ({ downstream: down }),
    });
    expect(offline).toMatchObject({
      source: 'local-copy',
      clusterError: expect.stringContaining('ECONNREFUSED'),
      phase: { type: 'in-progress' },
    });
    expect(offline.where).toContain(join('.uproot', 'test', 'journal.json'));
  });

  it('watches on the clock until interrupted', async () => {
    const sb = await sandbox();
    const objects = sb.objects();
    const controller = new AbortController();
    const reports: StatusReport[] = [];
    const watching = watchStatus(
      {},
      host(sb, controller.signal),
      { clock: sb.clock, connect: () => ({ downstream: objects }), intervalMs: 5_000 },
      (r) => {
        reports.push(r);
        if (reports.length === 3) controller.abort();
      },
    );
    const last = await drive(sb.clock, watching);
    expect(reports).toHaveLength(3);
    expect(last?.phase).toEqual({ type: 'no-migration' });
    expect(Date.parse(reports[2]!.readAt) - Date.parse(reports[0]!.readAt)).toBe(10_000);
  });
});

function seedEndState(sb: EngineSandbox, options: { kcmMigration?: boolean } = {}): void {
  for (const i of [1, 2, 3]) {
    sb.server.store.create('v1/pods', {
      metadata: {
        name: `kube-controller-manager-cp-${i}`,
        namespace: 'kube-system',
        labels: { component: 'kube-controller-manager', tier: 'control-plane' },
      },
      spec: {
        nodeName: `cp-${i}`,
        containers: [
          {
            name: 'kube-controller-manager',
            image: 'k8s',
            command: [
              'kube-controller-manager',
              '--cloud-provider=external',
              ...(options.kcmMigration && i === 2 ? ['--enable-leader-migration'] : []),
            ],
          },
        ],
      },
    });
    const pod = sb.server.store.get('v1/pods', 'kube-system', `kube-controller-manager-cp-${i}`)!;
    sb.server.store.update(
      'v1/pods',
      {
        ...structuredClone(pod),
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      },
      { subresource: 'status', namespace: 'kube-system', name: pod.metadata!.name! },
    );
  }
}

const instances =
  (zone: (i: number) => string) =>
  async (_region: string, ids: readonly string[]): Promise<InstanceFact[]> =>
    ids.map((id) => ({
      instanceId: id,
      availabilityZone: zone(Number(id.slice(-1))),
      privateDnsName: '',
      state: 'running',
    }));

describe('uproot verify', () => {
  it('passes on a migrated cluster: providerIDs match EC2, CCM runs, KCM runs no cloud controllers, LBs kept', async () => {
    const sb = await sandbox();
    autoRollOut(sb.server);
    expect((await run(sb)).exitCode).toBe(0);
    seedEndState(sb);
    const objects = sb.objects();
    const { report, exitCode } = await verify({}, host(sb), {
      clock: sb.clock,
      connect: () => ({ downstream: objects }),
      instances: instances(() => 'us-east-1a'),
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['provider-ids', 'pass'],
      ['nodes-initialized', 'pass'],
      ['ccm-running', 'pass'],
      ['kcm-external', 'pass'],
      ['load-balancers-kept', 'pass'],
      ['no-ownership-overlap', 'pass'],
    ]);
    expect(report.checks[0]!.detail).toContain('match their EC2 instance in us-east-1');
    expect(exitCode).toBe(0);
  });

  it('fails (exit 1) with the node and the fix when something is off', async () => {
    const sb = await sandbox();
    autoRollOut(sb.server);
    expect((await run(sb)).exitCode).toBe(0);
    seedEndState(sb, { kcmMigration: true });
    const svc = sb.server.store.get('v1/services', 'default', 'front')!;
    sb.server.store.update(
      'v1/services',
      {
        ...structuredClone(svc),
        status: { loadBalancer: { ingress: [{ hostname: 'new.elb.amazonaws.com' }] } },
      },
      { subresource: 'status', namespace: 'default', name: 'front' },
    );
    const objects = sb.objects();
    const { report, exitCode } = await verify({}, host(sb), {
      clock: sb.clock,
      connect: () => ({ downstream: objects }),
      instances: instances((i) => (i === 2 ? 'us-east-1b' : 'us-east-1a')),
    });
    expect(exitCode).toBe(1);
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
    expect(byId['provider-ids']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('cp-2 (zone us-east-1a, the instance is in us-east-1b)'),
    });
    expect(byId['kcm-external']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('cp-2 (leader migration enabled)'),
    });
    expect(byId['load-balancers-kept']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('a1b2.elb.us-east-1.amazonaws.com → new.elb.amazonaws.com'),
    });
  });
});
