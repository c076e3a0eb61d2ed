import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, node, startSandbox, tableRows, waitForOutput, type Sandbox } from './harness.js';

const CCM_DS = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: aws-cloud-controller-manager
  namespace: kube-system
  labels:
    k8s-app: aws-cloud-controller-manager
spec:
  selector:
    matchLabels:
      k8s-app: aws-cloud-controller-manager
  template:
    metadata:
      labels:
        k8s-app: aws-cloud-controller-manager
    spec:
      nodeSelector:
        node-role.kubernetes.io/control-plane: "true"
      containers:
        - name: aws-cloud-controller-manager
          image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.32.0
          args: ["--v=2", "--cloud-provider=aws"]
          env:
            - name: A
              value: "1"
`;

describe('real kubectl against the sandbox API server', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await startSandbox();
    const store = sb.server.store;
    store.create('nodes', node('cp-1', { controlPlane: true }));
    store.create('nodes', node('cp-2', { controlPlane: true }));
    store.create('nodes', node('worker-1', { ready: false }));
  });

  afterAll(async () => {
    await sb.close();
  });

  it('gets nodes as a server-side table, wide columns included', async () => {
    const plain = await sb.kubectl(['get', 'nodes']);
    expect(plain.code).toBe(0);
    const rows = tableRows(plain.stdout);
    expect(rows[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(rows.find((r) => r[0] === 'cp-1')).toEqual([
      'cp-1',
      'Ready',
      'control-plane,etcd',
      expect.stringMatching(/^\d+s$/),
      'v1.32.4+rke2r1',
    ]);
    expect(rows.find((r) => r[0] === 'worker-1')?.[1]).toBe('NotReady');
    const wide = await sb.kubectl(['get', 'nodes', '-o', 'wide']);
    expect(tableRows(wide.stdout)[0]).toEqual([
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
  });

  it('cordons the control-plane nodes by label', async () => {
    const result = await sb.kubectl(['cordon', '-l', 'node-role.kubernetes.io/control-plane=true']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').sort()).toEqual(['node/cp-1 cordoned', 'node/cp-2 cordoned']);
    expect(sb.server.store.get('nodes', undefined, 'cp-1')?.spec).toMatchObject({ unschedulable: true });
    expect(
      (sb.server.store.get('nodes', undefined, 'worker-1')?.spec as Record<string, unknown>).unschedulable,
    ).toBeUndefined();
    const again = await sb.kubectl(['cordon', '-l', 'node-role.kubernetes.io/control-plane=true']);
    expect(again.stdout).toContain('node/cp-1 already cordoned');
    const rows = tableRows((await sb.kubectl(['get', 'nodes'])).stdout);
    expect(rows.find((r) => r[0] === 'cp-2')?.[1]).toBe('Ready,SchedulingDisabled');
    await sb.kubectl(['uncordon', 'cp-1', 'cp-2']);
  });

  it('patches the leader-locking role with a merge patch, then reports no change', async () => {
    const args = [
      'patch',
      '-n',
      'kube-system',
      'role',
      'system::leader-locking-kube-controller-manager',
      '-p',
      '{"rules": [ {"apiGroups":[ "coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["cloud-provider-extraction-migration"], "verbs": ["create", "list", "get", "update"] } ]}',
      '--type=merge',
    ];
    const first = await sb.kubectl(args);
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(
      'role.rbac.authorization.k8s.io/system::leader-locking-kube-controller-manager patched',
    );
    expect(
      sb.server.store.get(
        'roles.rbac.authorization.k8s.io',
        'kube-system',
        'system::leader-locking-kube-controller-manager',
      )?.rules,
    ).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['cloud-provider-extraction-migration'],
        verbs: ['create', 'list', 'get', 'update'],
      },
    ]);
    const second = await sb.kubectl(args);
    expect(second.stdout.trim()).toBe(
      'role.rbac.authorization.k8s.io/system::leader-locking-kube-controller-manager patched (no change)',
    );
  });

  it('describes nodes with their ProviderID', async () => {
    const result = await sb.kubectl(['describe', 'nodes']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n').filter((l) => l.includes('ProviderID'));
    expect(lines.map((l) => l.split(/\s+/)[1]).sort()).toEqual([
      'aws:///us-east-1a/i-cp-1',
      'aws:///us-east-1a/i-cp-2',
      'aws:///us-east-1a/i-worker-1',
    ]);
    expect(result.stdout).toContain('Roles:              control-plane,etcd');
  });

  it('applies a manifest (create, update, server-side) and bumps generation', async () => {
    const file = join(sb.dir, 'ccm.yaml');
    writeFileSync(file, CCM_DS);
    const created = await sb.kubectl(['apply', '-f', file]);
    expect(created.stdout.trim()).toBe('daemonset.apps/aws-cloud-controller-manager created');
    writeFileSync(file, CCM_DS.replace('--v=2', '--v=4').replace('value: "1"', 'value: "2"'));
    const updated = await sb.kubectl(['apply', '-f', file]);
    expect(updated.stdout.trim()).toBe('daemonset.apps/aws-cloud-controller-manager configured');
    const ds = sb.server.store.get('daemonsets.apps', 'kube-system', 'aws-cloud-controller-manager')!;
    expect(ds.metadata?.generation).toBe(2);
    const container = (
      ds.spec as { template: { spec: { containers: { args: string[]; env: unknown[] }[] } } }
    ).template.spec.containers[0]!;
    expect(container.args).toEqual(['--v=4', '--cloud-provider=aws']);
    expect(container.env).toEqual([{ name: 'A', value: '2' }]);
    expect(ds.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toContain('--v=4');

    const cm = join(sb.dir, 'cm.yaml');
    writeFileSync(
      cm,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: default\ndata:\n  a: "1"\n',
    );
    const ssa = await sb.kubectl(['apply', '--server-side', '-f', cm]);
    expect(ssa.stdout.trim()).toBe('configmap/ssa serverside-applied');
    expect(sb.server.store.get('configmaps', 'default', 'ssa')?.data).toEqual({ a: '1' });
  });

  it('waits in rollout status until the DaemonSet status catches up', async () => {
    const store = sb.server.store;
    const child = sb.spawnKubectl([
      'rollout',
      'status',
      'daemonset',
      '-n',
      'kube-system',
      'aws-cloud-controller-manager',
    ]);
    await waitForOutput(child, (out) => out.includes('Waiting for daemon set spec update to be observed'));
    const generation = store.get('daemonsets.apps', 'kube-system', 'aws-cloud-controller-manager')!.metadata!
      .generation!;
    store.patch(
      'daemonsets.apps',
      'kube-system',
      'aws-cloud-controller-manager',
      'merge',
      {
        status: {
          observedGeneration: generation,
          desiredNumberScheduled: 2,
          currentNumberScheduled: 2,
          updatedNumberScheduled: 1,
          numberAvailable: 1,
          numberReady: 1,
        },
      },
      { subresource: 'status' },
    );
    await waitForOutput(child, (out) => out.includes('1 out of 2 new pods have been updated'));
    store.patch(
      'daemonsets.apps',
      'kube-system',
      'aws-cloud-controller-manager',
      'merge',
      { status: { updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 2 } },
      { subresource: 'status' },
    );
    const out = await waitForOutput(child, (o) => o.includes('successfully rolled out'));
    expect(out).toContain('daemon set "aws-cloud-controller-manager" successfully rolled out');
    expect(await exitOf(child)).toBe(0);
  });

  it('prints DaemonSets with their real columns', async () => {
    const rows = tableRows((await sb.kubectl(['get', 'ds', '-n', 'kube-system'])).stdout);
    expect(rows[0]).toEqual([
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'NODE SELECTOR',
      'AGE',
    ]);
    expect(rows[1]!.slice(0, 7)).toEqual([
      'aws-cloud-controller-manager',
      '2',
      '2',
      '2',
      '2',
      '2',
      'node-role.kubernetes.io/control-plane=true',
    ]);
  });

  it('streams a watch with one header and new rows as nodes change', async () => {
    const child = sb.spawnKubectl(['get', 'nodes', '-w']);
    await waitForOutput(child, (out) => out.includes('worker-1'));
    sb.server.store.patch(
      'nodes',
      undefined,
      'worker-1',
      'merge',
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      { subresource: 'status' },
    );
    const out = await waitForOutput(child, (o) => /worker-1\s+Ready\s/.test(o));
    child.kill('SIGTERM');
    expect(out.split('\n').filter((l) => l.startsWith('NAME')).length).toBe(1);
    expect(out).toMatch(/worker-1\s+NotReady/);
  });

  it('edits a DaemonSet through $EDITOR', async () => {
    const editor = join(sb.dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/--v=4/--v=5/" "$1"\n');
    chmodSync(editor, 0o755);
    const result = await sb.kubectl(
      ['edit', 'daemonset', '-n', 'kube-system', 'aws-cloud-controller-manager'],
      { env: { KUBE_EDITOR: editor } },
    );
    expect(result.stdout.trim()).toBe('daemonset.apps/aws-cloud-controller-manager edited');
    const ds = sb.server.store.get('daemonsets.apps', 'kube-system', 'aws-cloud-controller-manager')!;
    expect(JSON.stringify(ds.spec)).toContain('--v=5');
  });

  it('lists Rancher clusters across namespaces with their printer columns', async () => {
    const store = sb.server.store;
    store.create('namespaces', { metadata: { name: 'fleet-default' } });
    store.create('clusters.provisioning.cattle.io', {
      metadata: { name: 'downstream', namespace: 'fleet-default' },
      spec: { rkeConfig: {} },
      status: { ready: true, clientSecretName: 'downstream-kubeconfig' },
    });
    const result = await sb.kubectl(['get', 'clusters.provisioning.cattle.io', '-A']);
    expect(result.code).toBe(0);
    const rows = tableRows(result.stdout);
    expect(rows[0]).toEqual(['NAMESPACE', 'NAME', 'READY', 'KUBECONFIG']);
    expect(rows[1]).toEqual(['fleet-default', 'downstream', 'true', 'downstream-kubeconfig']);
  });

  it('shows lease holders and deletes objects', async () => {
    const store = sb.server.store;
    store.create('leases.coordination.k8s.io', {
      metadata: { name: 'kube-controller-manager', namespace: 'kube-system' },
      spec: { holderIdentity: 'cp-1_1234', leaseDurationSeconds: 15 },
    });
    const rows = tableRows((await sb.kubectl(['get', 'lease', '-n', 'kube-system'])).stdout);
    expect(rows[0]).toEqual(['NAME', 'HOLDER', 'AGE']);
    expect(rows[1]!.slice(0, 2)).toEqual(['kube-controller-manager', 'cp-1_1234']);
    const del = await sb.kubectl(['delete', 'configmap', 'ssa', '-n', 'default']);
    expect(del.stdout.trim()).toBe('configmap "ssa" deleted');
    const missing = await sb.kubectl(['get', 'configmap', 'ssa', '-n', 'default']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Error from server (NotFound): configmaps "ssa" not found');
  });

  it('accepts the protobuf bodies of kubectl create and auth can-i', async () => {
    expect((await sb.kubectl(['create', 'namespace', 'team'])).stdout.trim()).toBe('namespace/team created');
    await sb.kubectl(['create', 'configmap', 'cfg', '-n', 'team', '--from-literal=a=1']);
    await sb.kubectl(['create', 'secret', 'generic', 'creds', '-n', 'team', '--from-literal=user=admin']);
    const store = sb.server.store;
    expect(store.get('configmaps', 'team', 'cfg')?.data).toEqual({ a: '1' });
    expect(store.get('secrets', 'team', 'creds')).toMatchObject({
      type: 'Opaque',
      data: { user: Buffer.from('admin').toString('base64') },
    });
    const binding = await sb.kubectl([
      'create',
      'rolebinding',
      'rb',
      '-n',
      'team',
      '--clusterrole=cluster-admin',
      '--user=bob',
    ]);
    expect(binding.stdout.trim()).toBe('rolebinding.rbac.authorization.k8s.io/rb created');
    expect(store.get('rolebindings.rbac.authorization.k8s.io', 'team', 'rb')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    expect((await sb.kubectl(['auth', 'can-i', 'delete', 'nodes'])).stdout.trim()).toBe('yes');
    const denied = await sb.kubectl(['--context', 'kcm', 'auth', 'can-i', 'delete', 'namespaces']);
    expect(denied.stdout.trim()).toBe('no');
    expect((await sb.kubectl(['--context', 'kcm', 'auth', 'can-i', 'list', 'nodes'])).stdout.trim()).toBe(
      'yes',
    );
  });
});
