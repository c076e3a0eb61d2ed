import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from 'uproot';
import { builtinKinds } from '../registry/builtin-kinds.js';
import { rancherCrds } from '../registry/rancher-crds.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { ApiStatusError } from '../status/api-status-error.js';
import type { StoreEvent } from './event-log.js';
import { ObjectStore } from './object-store.js';

function newStore(watchWindow = 1000): { store: ObjectStore; clock: VirtualClock } {
  const registry = new ResourceRegistry();
  for (const t of builtinKinds()) registry.add(t);
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const store = new ObjectStore(registry, { clock, random: seededRandom(7), watchWindow });
  for (const name of ['default', 'kube-system']) store.create('namespaces', { metadata: { name } });
  return { store, clock };
}

function statusOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiStatusError) return e.status;
    throw e;
  }
  throw new Error('expected an ApiStatusError');
}

const ds = {
  metadata: { name: 'ccm', namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { app: 'ccm' } },
    template: { spec: { containers: [{ name: 'c', image: 'a' }] } },
  },
};

describe('ObjectStore writes', () => {
  it('stamps uid, timestamps, resourceVersion and defaults, and freezes objects', () => {
    const { store } = newStore();
    const created = store.create('apps/v1/daemonsets', ds);
    expect(created.metadata).toMatchObject({
      name: 'ccm',
      namespace: 'kube-system',
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00Z',
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata?.resourceVersion)).toBe(store.currentRevision);
    expect(created).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      spec: { updateStrategy: { type: 'RollingUpdate' } },
    });
    expect(Object.isFrozen(created.metadata)).toBe(true);
  });

  it('bumps generation on spec changes only, and keeps status and spec writes apart', () => {
    const { store } = newStore();
    const c = store.create('daemonsets.apps', ds);
    const labelled = store.patch('daemonsets.apps', 'kube-system', 'ccm', 'merge', {
      metadata: { labels: { x: 'y' } },
      status: { numberReady: 9 },
    });
    expect(labelled.metadata?.generation).toBe(1);
    expect(labelled.status).toEqual(c.status);
    const respec = store.patch('daemonsets.apps', 'kube-system', 'ccm', 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'c', image: 'b' }] } } },
    });
    expect(respec.metadata?.generation).toBe(2);
    const status = store.patch(
      'daemonsets.apps',
      'kube-system',
      'ccm',
      'merge',
      { spec: { minReadySeconds: 5 }, status: { observedGeneration: 2, numberReady: 1 } },
      { subresource: 'status' },
    );
    expect(status.status).toMatchObject({ observedGeneration: 2, numberReady: 1 });
    expect((status.spec as Record<string, unknown>).minReadySeconds).toBeUndefined();
    expect(status.metadata?.generation).toBe(2);
  });

  it('answers 409 on a stale resourceVersion and updates unconditionally without one', () => {
    const { store } = newStore();
    const lease = store.create('coordination.k8s.io/v1/leases', {
      metadata: { name: 'l', namespace: 'kube-system' },
      spec: { holderIdentity: 'a' },
    });
    store.update('leases.coordination.k8s.io', { ...lease, spec: { holderIdentity: 'b' } });
    expect(
      statusOf(() => store.update('leases.coordination.k8s.io', { ...lease, spec: { holderIdentity: 'c' } })),
    ).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on leases.coordination.k8s.io "l": the object has been modified; please apply your changes to the latest version and try again',
    });
    const forced = store.update('leases.coordination.k8s.io', {
      ...lease,
      metadata: { ...lease.metadata, resourceVersion: undefined },
      spec: { holderIdentity: 'c' },
    });
    expect(forced.spec).toEqual({ holderIdentity: 'c' });
  });

  it('does not write (or bump the RV) when an update changes nothing', () => {
    const { store } = newStore();
    const cm = store.create('configmaps', {
      metadata: { name: 'c', namespace: 'default' },
      data: { a: '1' },
    });
    const before = store.currentRevision;
    expect(store.update('configmaps', cm)).toBe(cm);
    expect(store.currentRevision).toBe(before);
  });

  it('checks names, namespaces and duplicates like the API server', () => {
    const { store } = newStore();
    expect(
      statusOf(() => store.create('configmaps', { metadata: { name: 'x', namespace: 'nope' } })),
    ).toMatchObject({ code: 404, message: 'namespaces "nope" not found' });
    expect(
      statusOf(() => store.create('configmaps', { metadata: { name: 'Bad_Name', namespace: 'default' } })),
    ).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(statusOf(() => store.create('configmaps', { metadata: {} }))).toMatchObject({
      code: 422,
      message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    });
    store.create('configmaps', { metadata: { name: 'x', namespace: 'default' } });
    expect(
      statusOf(() => store.create('configmaps', { metadata: { name: 'x', namespace: 'default' } })),
    ).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'configmaps "x" already exists' });
    expect(
      store.create('roles.rbac.authorization.k8s.io', {
        metadata: { name: 'system::x', namespace: 'default' },
      }).metadata?.name,
    ).toBe('system::x');
    expect(
      store.create('pods', { metadata: { generateName: 'web-', namespace: 'default' } }).metadata?.name,
    ).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('holds objects with finalizers until the last one is removed', () => {
    const { store } = newStore();
    store.create('configmaps', {
      metadata: { name: 'f', namespace: 'default', finalizers: ['example.com/hold'] },
    });
    const pending = store.delete('configmaps', 'default', 'f');
    expect(pending.removed).toBe(false);
    expect(pending.object.metadata?.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    store.patch('configmaps', 'default', 'f', 'merge', { metadata: { finalizers: null } });
    expect(store.get('configmaps', 'default', 'f')).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['DELETED']);
  });

  it('deletes a namespace with its content and refuses to delete kube-system', () => {
    const { store } = newStore();
    store.create('namespaces', { metadata: { name: 'team' } });
    store.create('configmaps', { metadata: { name: 'a', namespace: 'team' } });
    expect(store.delete('namespaces', undefined, 'team').removed).toBe(true);
    expect(store.get('configmaps', 'team', 'a')).toBeUndefined();
    expect(statusOf(() => store.delete('namespaces', undefined, 'kube-system'))).toMatchObject({
      code: 403,
      message: 'namespaces "kube-system" is forbidden: this namespace may not be deleted',
    });
  });

  it('serves custom resources once their CRD exists and removes them with it', () => {
    const { store } = newStore();
    for (const crd of rancherCrds()) store.create('customresourcedefinitions.apiextensions.k8s.io', crd);
    const crd = store.get(
      'customresourcedefinitions.apiextensions.k8s.io',
      undefined,
      'clusters.provisioning.cattle.io',
    );
    expect(crd?.status).toMatchObject({
      conditions: [
        { type: 'NamesAccepted', status: 'True' },
        { type: 'Established', status: 'True' },
      ],
    });
    store.create('provisioning.cattle.io/v1/clusters', {
      metadata: { name: 'c1', namespace: 'default' },
      spec: {},
    });
    expect(store.registry.tryResolve('provisioning.cattle.io/v1/clusters')?.custom).toBe(true);
    store.delete(
      'customresourcedefinitions.apiextensions.k8s.io',
      undefined,
      'clusters.provisioning.cattle.io',
    );
    expect(store.registry.tryResolve('provisioning.cattle.io/v1/clusters')).toBeUndefined();
    expect(
      statusOf(() =>
        store.create('customresourcedefinitions.apiextensions.k8s.io', {
          metadata: { name: 'wrong' },
          spec: {
            group: 'g.io',
            scope: 'Cluster',
            names: { plural: 'things', kind: 'Thing' },
            versions: [{ name: 'v1', served: true, storage: true }],
          },
        }),
      ),
    ).toMatchObject({ code: 422 });
  });
});

describe('ObjectStore lists', () => {
  it('uses the node-name index and selectors', () => {
    const { store } = newStore();
    for (let i = 0; i < 10; i++) {
      store.create('pods', {
        metadata: { name: `p${i}`, namespace: i % 2 ? 'default' : 'kube-system', labels: { i: String(i) } },
        spec: { nodeName: `n${i % 3}` },
      });
    }
    const onN1 = store.list('pods', { fieldSelector: 'spec.nodeName=n1' }).items.map((p) => p.metadata?.name);
    expect(onN1).toEqual(['p1', 'p7', 'p4']);
    expect(
      store
        .list('pods', { namespace: 'default', fieldSelector: 'spec.nodeName=n1,status.phase!=Failed' })
        .items.map((p) => p.metadata?.name),
    ).toEqual(['p1', 'p7']);
    expect(store.list('pods', { labelSelector: 'i in (1,2)' }).items).toHaveLength(2);
  });

  it('pages from a consistent snapshot while objects change between pages', () => {
    const { store } = newStore();
    for (let i = 0; i < 30; i++)
      store.create('configmaps', {
        metadata: { name: `cm-${String(i).padStart(2, '0')}`, namespace: 'default' },
      });
    const first = store.list('configmaps', { namespace: 'default', limit: 10 });
    const snapshotNames = store
      .list('configmaps', { namespace: 'default' })
      .items.map((o) => o.metadata?.name);
    store.delete('configmaps', 'default', 'cm-15');
    store.create('configmaps', { metadata: { name: 'cm-155', namespace: 'default' } });
    store.patch('configmaps', 'default', 'cm-20', 'merge', { data: { changed: 'yes' } });
    const second = store.list('configmaps', { namespace: 'default', limit: 10, continue: first.continue! });
    const third = store.list('configmaps', { namespace: 'default', limit: 10, continue: second.continue! });
    expect(second.resourceVersion).toBe(first.resourceVersion);
    expect(third.continue).toBeUndefined();
    const names = [...first.items, ...second.items, ...third.items].map((o) => o.metadata?.name);
    expect(names).toEqual(snapshotNames);
    expect(third.items.find((o) => o.metadata?.name === 'cm-20')?.data).toBeUndefined();
  });

  it('expires continue tokens and watch positions older than the event log', () => {
    const { store } = newStore(5);
    for (let i = 0; i < 4; i++)
      store.create('configmaps', { metadata: { name: `c${i}`, namespace: 'default' } });
    const first = store.list('configmaps', { namespace: 'default', limit: 2 });
    for (let i = 0; i < 10; i++)
      store.patch('configmaps', 'default', 'c3', 'merge', { data: { n: String(i) } });
    expect(
      statusOf(() => store.list('configmaps', { namespace: 'default', limit: 2, continue: first.continue! })),
    ).toMatchObject({ code: 410, reason: 'Expired' });
    expect(statusOf(() => store.eventsSince(store.resolve('configmaps'), 1))).toMatchObject({
      code: 410,
      reason: 'Expired',
    });
  });
});
