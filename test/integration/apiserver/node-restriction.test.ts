import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig, type Identity } from '../../../packages/sandbox/src/apiserver/index.js';
import { ADMIN, KCM, node, startSandbox, type Sandbox } from './harness.js';

/** NodeRestriction as kubernetes/kubernetes plugin/pkg/admission/noderestriction/admission.go words it. */
const KUBELET_A: Identity = {
  name: 'kubelet-a',
  token: 'kubelet-a-token',
  user: 'system:node:node-a',
  groups: ['system:nodes'],
};

function statusMessage(e: unknown): { code: number | undefined; message: string | undefined } {
  const err = e as { code?: number; body?: string };
  const body = typeof err.body === 'string' ? (JSON.parse(err.body) as { message?: string }) : {};
  return { code: err.code, message: body.message };
}

describe('NodeRestriction for node identities', () => {
  let sb: Sandbox;
  let kubeconfig: string;
  let core: k8s.CoreV1Api;
  let leases: k8s.CoordinationV1Api;

  beforeAll(async () => {
    sb = await startSandbox({ identities: [ADMIN, KCM, KUBELET_A] });
    sb.server.store.create('nodes', node('node-a'));
    sb.server.store.create('nodes', node('node-b'));
    kubeconfig = join(sb.dir, 'node-kubeconfig');
    writeKubeconfig(
      kubeconfig,
      [
        sb.server.kubeconfigEntry(ADMIN, { contextName: 'admin' }),
        sb.server.kubeconfigEntry(KUBELET_A, { contextName: 'sandbox-node' }),
      ],
      'admin',
    );
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    kc.setCurrentContext('sandbox-node');
    core = kc.makeApiClient(k8s.CoreV1Api);
    leases = kc.makeApiClient(k8s.CoordinationV1Api);
  });

  afterAll(async () => {
    await sb.close();
  });

  it('refuses `kubectl cordon` of another node with the plugin message, and allows its own', async () => {
    const other = await sb.kubectl([
      '--kubeconfig',
      kubeconfig,
      '--context',
      'sandbox-node',
      'cordon',
      'node-b',
    ]);
    // kubectl reports a node it could not cordon on stderr (and, as upstream kubectl does, exits 0).
    expect(other.stderr).toContain(
      'error: unable to cordon node "node-b": nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"',
    );
    expect(
      (sb.server.store.get('nodes', '', 'node-b')?.spec as { unschedulable?: boolean } | undefined)
        ?.unschedulable,
    ).toBeUndefined();

    const own = await sb.kubectl([
      '--kubeconfig',
      kubeconfig,
      '--context',
      'sandbox-node',
      'cordon',
      'node-a',
    ]);
    expect(own.stderr).toBe('');
    expect(own.code).toBe(0);
    expect(
      (sb.server.store.get('nodes', '', 'node-a')?.spec as { unschedulable?: boolean } | undefined)
        ?.unschedulable,
    ).toBe(true);
  });

  it('refuses taint and non-kubelet label changes on its own node (client-node)', async () => {
    const taint = await core
      .patchNode(
        { name: 'node-a', body: { spec: { taints: [{ key: 'x', value: 'y', effect: 'NoSchedule' }] } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(statusMessage(taint)).toEqual({
      code: 403,
      message: 'nodes "node-a" is forbidden: node "node-a" is not allowed to modify taints',
    });

    const role = await core
      .patchNode(
        { name: 'node-a', body: { metadata: { labels: { 'node-role.kubernetes.io/worker': 'true' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(statusMessage(role)).toEqual({
      code: 403,
      message: 'nodes "node-a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker',
    });

    // Labels in the kubelet's own namespaces are allowed.
    const ok = await core.patchNode(
      { name: 'node-a', body: { metadata: { labels: { 'node.kubernetes.io/instance-type': 'm5.large' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(ok.metadata?.labels?.['node.kubernetes.io/instance-type']).toBe('m5.large');
  });

  it('refuses another node status and delete, even as a dry run', async () => {
    const status = await core
      .patchNodeStatus(
        { name: 'node-b', body: { status: { phase: 'Running' } }, dryRun: 'All' },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(statusMessage(status).message).toBe(
      'nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"',
    );
    const del = await core.deleteNode({ name: 'node-b' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusMessage(del).code).toBe(403);
    expect(sb.server.store.get('nodes', '', 'node-b')).toBeDefined();
  });

  it('limits node leases to its own name in kube-node-lease', async () => {
    const own = await leases.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: { metadata: { name: 'node-a' }, spec: { holderIdentity: 'node-a' } },
    });
    expect(own.metadata?.name).toBe('node-a');
    const other = await leases
      .createNamespacedLease({
        namespace: 'kube-node-lease',
        body: { metadata: { name: 'node-b' }, spec: { holderIdentity: 'node-a' } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(statusMessage(other)).toEqual({
      code: 403,
      message:
        'leases.coordination.k8s.io "node-b" is forbidden: can only access node lease with the same name as the requesting node',
    });
    const elsewhere = await leases
      .createNamespacedLease({
        namespace: 'kube-system',
        body: { metadata: { name: 'node-a' }, spec: { holderIdentity: 'node-a' } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(statusMessage(elsewhere).message).toBe(
      'leases.coordination.k8s.io "node-a" is forbidden: can only access leases in the "kube-node-lease" system namespace',
    );
  });
});
