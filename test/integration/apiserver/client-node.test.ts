import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { node, startSandbox, type Sandbox } from './harness.js';

function apiError(e: unknown): { code: number; body: Record<string, unknown> } {
  const err = e as k8s.ApiException<string>;
  return { code: err.code, body: JSON.parse(err.body) as Record<string, unknown> };
}

async function rejection(p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return apiError(e);
  }
  throw new Error('expected the call to fail');
}

/** Resolves once `check` holds, polling real time (the informer runs on real I/O). */
async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('@kubernetes/client-node against the sandbox API server', () => {
  let sb: Sandbox;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  beforeEach(async () => {
    sb = await startSandbox({ watchWindow: 50 });
    kc = sb.client();
    core = kc.makeApiClient(k8s.CoreV1Api);
  });

  afterEach(async () => {
    await sb.close();
  });

  it('creates, reads, lists, replaces and deletes', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cfg', labels: { app: 'x' } }, data: { a: '1' } },
    });
    expect(created.metadata?.uid).toBeDefined();
    const read = await core.readNamespacedConfigMap({ namespace: 'default', name: 'cfg' });
    expect(read.data).toEqual({ a: '1' });
    const list = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=x' });
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['cfg']);
    const replaced = await core.replaceNamespacedConfigMap({
      namespace: 'default',
      name: 'cfg',
      body: { ...read, data: { a: '2' } },
    });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(
      Number(read.metadata?.resourceVersion),
    );
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'cfg' });
    expect(
      await rejection(core.readNamespacedConfigMap({ namespace: 'default', name: 'cfg' })),
    ).toMatchObject({
      code: 404,
      body: { kind: 'Status', reason: 'NotFound', message: 'configmaps "cfg" not found' },
    });
  });

  it('answers 409 Conflict on a stale resourceVersion with the upstream message', async () => {
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const lease = await coord.createNamespacedLease({
      namespace: 'kube-system',
      body: { metadata: { name: 'cloud-provider-extraction-migration' }, spec: { holderIdentity: 'a' } },
    });
    await coord.replaceNamespacedLease({
      namespace: 'kube-system',
      name: lease.metadata!.name!,
      body: { ...lease, spec: { holderIdentity: 'b' } },
    });
    const err = await rejection(
      coord.replaceNamespacedLease({
        namespace: 'kube-system',
        name: lease.metadata!.name!,
        body: { ...lease, spec: { holderIdentity: 'c' } },
      }),
    );
    expect(err).toEqual({
      code: 409,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'Operation cannot be fulfilled on leases.coordination.k8s.io "cloud-provider-extraction-migration": the object has been modified; please apply your changes to the latest version and try again',
        reason: 'Conflict',
        details: {
          name: 'cloud-provider-extraction-migration',
          group: 'coordination.k8s.io',
          kind: 'leases',
        },
        code: 409,
      },
    });
    expect(
      await rejection(
        coord.createNamespacedLease({
          namespace: 'kube-system',
          body: { metadata: { name: 'cloud-provider-extraction-migration' } },
        }),
      ),
    ).toMatchObject({ code: 409, body: { reason: 'AlreadyExists' } });
    expect(
      await rejection(
        coord.createNamespacedLease({ namespace: 'missing', body: { metadata: { name: 'x' } } }),
      ),
    ).toMatchObject({ code: 404, body: { message: 'namespaces "missing" not found' } });
  });

  it('applies every patch type', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDaemonSet({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'ccm' },
        spec: {
          selector: { matchLabels: { app: 'ccm' } },
          template: {
            metadata: { labels: { app: 'ccm' } },
            spec: {
              containers: [
                { name: 'ccm', image: 'a:1', env: [{ name: 'A', value: '1' }] },
                { name: 'side', image: 's:1' },
              ],
            },
          },
        },
      },
    });
    const json = await apps.patchNamespacedDaemonSet({
      namespace: 'kube-system',
      name: 'ccm',
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'a:2' }],
    });
    expect(json.spec?.template.spec?.containers[0]?.image).toBe('a:2');
    const merge = await apps.patchNamespacedDaemonSet(
      { namespace: 'kube-system', name: 'ccm', body: { metadata: { labels: { tier: 'cp' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(merge.metadata?.labels).toEqual({ tier: 'cp' });
    const smp = await apps.patchNamespacedDaemonSet(
      {
        namespace: 'kube-system',
        name: 'ccm',
        body: {
          spec: { template: { spec: { containers: [{ name: 'ccm', env: [{ name: 'B', value: '2' }] }] } } },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(smp.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['ccm', 'side']);
    expect(smp.spec?.template.spec?.containers[0]?.env?.map((e) => e.name)).toEqual(['A', 'B']);
    expect(smp.metadata?.generation).toBe(3);
    const applied = await core.patchNamespacedConfigMap(
      {
        namespace: 'default',
        name: 'applied',
        fieldManager: 'uproot',
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'applied', namespace: 'default' },
          data: { k: 'v' },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
    expect(applied.data).toEqual({ k: 'v' });
    const status = await apps.patchNamespacedDaemonSetStatus(
      {
        namespace: 'kube-system',
        name: 'ccm',
        body: {
          status: {
            observedGeneration: 3,
            numberReady: 1,
            desiredNumberScheduled: 1,
            currentNumberScheduled: 1,
            numberMisscheduled: 0,
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(status.status?.observedGeneration).toBe(3);
    expect(status.metadata?.generation).toBe(3);
  });

  it('answers 415 to strategic merge patches on custom resources, like a real server', async () => {
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      group: 'helm.cattle.io',
      version: 'v1',
      namespace: 'kube-system',
      plural: 'helmcharts',
      body: {
        apiVersion: 'helm.cattle.io/v1',
        kind: 'HelmChart',
        metadata: { name: 'aws-ccm' },
        spec: { chart: 'aws-cloud-controller-manager' },
      },
    });
    const err = await rejection(
      custom.patchNamespacedCustomObject(
        {
          group: 'helm.cattle.io',
          version: 'v1',
          namespace: 'kube-system',
          plural: 'helmcharts',
          name: 'aws-ccm',
          body: { spec: { version: '1' } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(err).toMatchObject({ code: 415, body: { reason: 'UnsupportedMediaType' } });
    const merged = (await custom.patchNamespacedCustomObject(
      {
        group: 'helm.cattle.io',
        version: 'v1',
        namespace: 'kube-system',
        plural: 'helmcharts',
        name: 'aws-ccm',
        body: { spec: { version: '1' } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as { spec: Record<string, unknown> };
    expect(merged.spec).toEqual({ chart: 'aws-cloud-controller-manager', version: '1' });
  });

  it('streams watch events from a resourceVersion, honouring selectors', async () => {
    const base = (await core.listNode()).metadata!.resourceVersion!;
    const events: [string, string | undefined][] = [];
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(
      '/api/v1/nodes',
      { resourceVersion: base, labelSelector: 'node-role.kubernetes.io/control-plane=true' },
      (type, obj: k8s.V1Node) => events.push([type, obj.metadata?.name]),
      () => undefined,
    );
    const store = sb.server.store;
    store.create('nodes', node('cp-1', { controlPlane: true }));
    store.create('nodes', node('worker-1'));
    store.patch('nodes', undefined, 'cp-1', 'merge', {
      metadata: { labels: { 'node-role.kubernetes.io/control-plane': null } },
    });
    await eventually(() => events.length >= 2);
    req.abort();
    expect(events).toEqual([
      ['ADDED', 'cp-1'],
      ['DELETED', 'cp-1'],
    ]);
  });

  it('keeps an informer in sync across a dropped watch and a 410 Expired', async () => {
    const store = sb.server.store;
    store.create('nodes', node('n-0'));
    const informer = k8s.makeInformer(kc, '/api/v1/nodes', () => core.listNode());
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await eventually(() => informer.list().length === 1);
    await eventually(() => sb.server.stats().openWatches === 1);

    expect(sb.server.faults.dropWatches({ resource: 'nodes' })).toBe(1);
    store.create('nodes', node('n-1'));
    await eventually(() => informer.list().length === 2);

    // Drop the watch, then (before the informer reconnects) push its resourceVersion out of the
    // 50-event window: the re-watch gets an ERROR 410 Expired and the informer re-lists.
    const lists = sb.server.stats().byVerbAndResource['list nodes'] ?? 0;
    sb.server.faults.dropWatches({ resource: 'nodes' });
    for (let i = 0; i < 60; i++)
      store.create('configmaps', { metadata: { name: `noise-${i}`, namespace: 'default' } });
    store.create('nodes', node('n-2'));
    await eventually(() => informer.list().length === 3);
    expect(sb.server.stats().byVerbAndResource['list nodes']).toBeGreaterThan(lists);
    expect(errors).toEqual([]);
    await informer.stop();
  });
});
