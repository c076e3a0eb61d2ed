import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { exposeTwin } from '../../../packages/sandbox/src/twin/index.js';
import { seedCcmValues } from './seed-manifests.js';
import {
  nodes,
  ownerAtEnd,
  serviceHostnames,
  startHarness,
  whileAdvancing,
  type TwinHarness,
} from './support.js';

/**
 * Seed 002's RKE tab against the rke-intree twin: edit cluster.yml, apply it with `uproot sandbox rke-up`
 * (as `rke up`), cordon, install the chart, switch to external-aws with useInstanceMetadataHostname.
 */
describe('rke-intree following seed 002 (RKE)', () => {
  let harness: TwinHarness | undefined;
  let closeControl: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await closeControl?.();
    await harness?.close();
    harness = undefined;
  });

  it('migrates through cluster.yml edits and rke-up with the same load balancers and no overlap', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke-intree', clock);
    const { twin, kubectl, dir } = harness;
    closeControl = (await exposeTwin(twin, { pid: process.pid, timeScale: 1, onShutdown: () => undefined }))
      .close;
    const clusterYml = twin.files.rkeConfig!;
    const edit = (change: (doc: ReturnType<typeof parseDocument>) => void): void => {
      const doc = parseDocument(readFileSync(clusterYml, 'utf8'));
      change(doc);
      writeFileSync(clusterYml, doc.toString());
    };
    const rkeUp = async () => {
      const io = recordingIo({ cwd: dir });
      const code = await whileAdvancing(
        clock,
        runCli(['sandbox', 'rke-up', '--config', 'cluster.yml', '--dir', dir], io),
        { stepMs: 2_000 },
      );
      return { code, io };
    };
    await clock.advanceBy(30_000);
    const hostnamesBefore = serviceHostnames(twin);
    expect(readFileSync(clusterYml, 'utf8')).toContain('name: aws');

    // 1. services.kube-controller.extra_args.enable-leader-migration: "true"; cloud provider still aws.
    edit((doc) =>
      doc.setIn(['services', 'kube-controller', 'extra_args', 'enable-leader-migration'], 'true'),
    );
    const first = await rkeUp();
    expect(first.code, first.io.stderrText).toBe(0);
    expect(first.io.stderrText).toContain('Finished building Kubernetes cluster successfully');
    for (const agent of twin.nodes.all().filter((a) => a.instance.role === 'control-plane')) {
      const kcm = agent.runningConfig!.staticPods.find((p) => p.component === 'kube-controller-manager')!;
      expect(kcm.args).toContain('--enable-leader-migration=true');
      expect(kcm.args).toContain('--cloud-provider=aws');
    }

    // 2. Cordon the control plane (RKE's label).
    const cordon = await kubectl(['cordon', '-l', 'node-role.kubernetes.io/controlplane=true']);
    expect(cordon.code, cordon.stderr).toBe(0);
    expect(cordon.stdout.match(/cordoned/g)).toHaveLength(3);

    // 3. The chart with RKE's selector and tolerations and leader migration (helm install, here as a HelmChart).
    const values = seedCcmValues({ roleLabel: 'controlplane', leaderMigration: true, imageTag: 'v1.26.11' });
    const chart = stringify({
      apiVersion: 'helm.cattle.io/v1',
      kind: 'HelmChart',
      metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
      spec: {
        chart: 'aws-cloud-controller-manager',
        targetNamespace: 'kube-system',
        valuesContent: stringify(values),
      },
    });
    const applied = await kubectl(['apply', '-f', '-'], { input: chart });
    expect(applied.code, applied.stderr).toBe(0);
    await clock.advanceBy(5_000);
    // Helm merges the chart's default nodeSelector with the RKE one, which matches no node (seed 004, RKE step 4).
    const ds = () =>
      twin.downstream.store.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager')!;
    expect(
      (ds().spec as { template: { spec: { nodeSelector: unknown } } }).template.spec.nodeSelector,
    ).toEqual({
      'node-role.kubernetes.io/control-plane': '',
      'node-role.kubernetes.io/controlplane': 'true',
    });
    expect(ds().status).toMatchObject({ desiredNumberScheduled: 0 });
    const patchDaemonSet = (ops: unknown[]) =>
      kubectl([
        'patch',
        'daemonset',
        '-n',
        'kube-system',
        'aws-cloud-controller-manager',
        '--type=json',
        '-p',
        JSON.stringify(ops),
      ]);
    const removed = await patchDaemonSet([
      { op: 'remove', path: '/spec/template/spec/nodeSelector/node-role.kubernetes.io~1control-plane' },
    ]);
    expect(removed.code, removed.stderr).toBe(0);
    // Still nothing: RKE taints etcd hosts that are not workers etcd=true:NoExecute, which the seed's
    // tolerations miss. The toleration preflight names fixes it.
    await clock.advanceBy(5_000);
    expect(ds().status).toMatchObject({ desiredNumberScheduled: 0 });
    const tolerated = await patchDaemonSet([
      {
        op: 'add',
        path: '/spec/template/spec/tolerations/-',
        value: { key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' },
      },
    ]);
    expect(tolerated.code, tolerated.stderr).toBe(0);
    const rollout = await whileAdvancing(
      clock,
      kubectl([
        'rollout',
        'status',
        'daemonset',
        '-n',
        'kube-system',
        'aws-cloud-controller-manager',
        '--timeout=120s',
      ]),
    );
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(ds().status).toMatchObject({ desiredNumberScheduled: 3, numberReady: 3 });

    // 4. external-aws with useInstanceMetadataHostname; leader migration off the KCM.
    edit((doc) => {
      doc.setIn(
        ['cloud_provider'],
        doc.createNode({ name: 'external-aws', useInstanceMetadataHostname: true }),
      );
      doc.deleteIn(['services', 'kube-controller', 'extra_args', 'enable-leader-migration']);
    });
    const second = await rkeUp();
    expect(second.code, second.io.stderrText).toBe(0);
    for (const agent of twin.nodes.all()) {
      expect(agent.runningConfig!.kubelet.cloudProvider).toBe('external');
      const kcm = agent.runningConfig!.staticPods.find((p) => p.component === 'kube-controller-manager');
      if (kcm) {
        expect(kcm.args).toContain('--cloud-provider=external');
        expect(kcm.args.some((a) => a.startsWith('--enable-leader-migration'))).toBe(false);
      }
    }
    await clock.advanceBy(60_000);

    const described = await kubectl(['describe', 'nodes']);
    const providerIds = described.stdout.split('\n').filter((l) => l.includes('ProviderID'));
    expect(providerIds).toHaveLength(6);
    for (const node of nodes(twin)) {
      expect(node.providerID).toMatch(/^aws:\/\/\/us-east-1[abc]\/i-/);
      expect(node.taints.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized')).toBe(false);
      expect(node.unschedulable).toBe(false);
    }
    expect(serviceHostnames(twin)).toEqual(hostnamesBefore);
    const ledgerIo = recordingIo({ cwd: dir });
    expect(await runCli(['sandbox', 'ledger', '--dir', dir, '-o', 'json'], ledgerIo)).toBe(0);
    const ledger = JSON.parse(ledgerIo.stdoutText) as {
      controllers: Record<string, { state: string; overlapSeconds?: number; maxGapSeconds?: number }>;
    };
    expect(Object.keys(ledger.controllers)).toContain('service');
    for (const [name, c] of Object.entries(ledger.controllers)) expect(c.overlapSeconds ?? 0, name).toBe(0);
    expect(ownerAtEnd(twin, 'service')).toBe('cloud-controller-manager');
    expect(ownerAtEnd(twin, 'cloud-node-lifecycle')).toBe('cloud-controller-manager');
  });

  it('fails like rke up on a cluster.yml that keeps the in-tree provider on 1.27', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('rke-intree', clock);
    const { twin, dir } = harness;
    closeControl = (await exposeTwin(twin, { pid: process.pid, timeScale: 1, onShutdown: () => undefined }))
      .close;
    const file = twin.files.rkeConfig!;
    const doc = parseDocument(readFileSync(file, 'utf8'));
    doc.set('kubernetes_version', 'v1.27.16-rancher1-1');
    writeFileSync(file, doc.toString());
    const io = recordingIo({ cwd: dir });
    const code = await whileAdvancing(
      clock,
      runCli(['sandbox', 'rke-up', '--config', file, '--dir', dir], io),
    );
    expect(code).toBe(1);
    expect(io.stderrText).toContain('Cloud provider aws is invalid for [v1.27.16-rancher1-1]');
  });
});
