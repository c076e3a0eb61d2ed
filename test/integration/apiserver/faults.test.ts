import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../packages/uproot/src/clock/index.js';
import { node, startSandbox, type Sandbox } from './harness.js';

async function failure(p: Promise<unknown>): Promise<k8s.ApiException<string>> {
  try {
    await p;
  } catch (e) {
    return e as k8s.ApiException<string>;
  }
  throw new Error('expected a failure');
}

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('fault injection', () => {
  let sb: Sandbox;
  let coord: k8s.CoordinationV1Api;

  beforeEach(async () => {
    sb = await startSandbox({ random: seededRandom(3) });
    coord = sb.client().makeApiClient(k8s.CoordinationV1Api);
    sb.server.store.create('leases.coordination.k8s.io', {
      metadata: { name: 'kube-controller-manager', namespace: 'kube-system' },
      spec: {},
    });
  });

  afterEach(async () => {
    await sb.close();
  });

  it('fails the next N matching requests with 500, then recovers', async () => {
    const rule = sb.server.faults.failNext(
      2,
      { verb: 'get', resource: 'leases' },
      { type: 'status', code: 500 },
    );
    const first = await failure(
      coord.readNamespacedLease({ namespace: 'kube-system', name: 'kube-controller-manager' }),
    );
    expect(first.code).toBe(500);
    expect(JSON.parse(first.body)).toMatchObject({
      reason: 'InternalError',
      message: 'Internal error occurred: injected fault',
    });
    await failure(coord.readNamespacedLease({ namespace: 'kube-system', name: 'kube-controller-manager' }));
    const ok = await coord.readNamespacedLease({ namespace: 'kube-system', name: 'kube-controller-manager' });
    expect(ok.metadata?.name).toBe('kube-controller-manager');
    expect(rule.hits()).toBe(2);
  });

  it('throttles with 429 and Retry-After', async () => {
    sb.server.faults.add({
      match: { method: 'PUT' },
      action: { type: 'status', code: 429, retryAfterSeconds: 7 },
      times: 1,
    });
    const lease = await coord.readNamespacedLease({
      namespace: 'kube-system',
      name: 'kube-controller-manager',
    });
    const err = await failure(
      coord.replaceNamespacedLease({
        namespace: 'kube-system',
        name: 'kube-controller-manager',
        body: lease,
      }),
    );
    expect(err.code).toBe(429);
    expect(err.headers['retry-after']).toBe('7');
    expect(JSON.parse(err.body)).toMatchObject({
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 7 },
    });
  });

  it('injects conflicts and hangs that time out with 504', async () => {
    sb.server.faults.failNext(1, { verb: 'update' }, { type: 'status', code: 409 });
    const lease = await coord.readNamespacedLease({
      namespace: 'kube-system',
      name: 'kube-controller-manager',
    });
    const conflict = await failure(
      coord.replaceNamespacedLease({
        namespace: 'kube-system',
        name: 'kube-controller-manager',
        body: lease,
      }),
    );
    expect(conflict.code).toBe(409);
    expect(JSON.parse(conflict.body).message).toContain(
      'Operation cannot be fulfilled on leases.coordination.k8s.io "kube-controller-manager"',
    );
    sb.server.faults.failNext(1, { verb: 'get' }, { type: 'hang', ms: 50 });
    const timeout = await failure(
      coord.readNamespacedLease({ namespace: 'kube-system', name: 'kube-controller-manager' }),
    );
    expect(timeout.code).toBe(504);
  });

  it('lets an informer recover from dropped watches and failing re-watches', async () => {
    const kc = sb.client();
    const core = kc.makeApiClient(k8s.CoreV1Api);
    sb.server.store.create('nodes', node('a'));
    const informer = k8s.makeInformer(kc, '/api/v1/nodes', () => core.listNode());
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await eventually(() => sb.server.stats().openWatches === 1);
    for (let round = 0; round < 3; round++) {
      expect(sb.server.faults.dropWatches()).toBe(1);
      sb.server.store.create('nodes', node(`n-${round}`));
      await eventually(() => informer.list().length === round + 2 && sb.server.stats().openWatches === 1);
    }
    expect(errors).toEqual([]);
    await informer.stop();
  });
});
