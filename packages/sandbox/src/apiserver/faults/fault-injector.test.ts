import { describe, expect, it } from 'vitest';
import { seededRandom } from 'uproot';
import { faultError, FaultInjector, type FaultRequest } from './fault-injector.js';

const request: FaultRequest = {
  method: 'PUT',
  path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l',
  verb: 'update',
  apiGroup: 'coordination.k8s.io',
  resource: 'leases',
  subresource: '',
  namespace: 'kube-system',
  name: 'l',
  user: 'u',
};

describe('FaultInjector', () => {
  it('fires on the next N matching requests only', () => {
    const f = new FaultInjector(seededRandom(1), () => 0);
    const h = f.failNext(
      2,
      { verb: 'update', resource: 'leases.coordination.k8s.io' },
      { type: 'status', code: 500 },
    );
    expect(f.pick({ ...request, verb: 'get' })).toBeUndefined();
    expect(f.pick(request)).toEqual({ type: 'status', code: 500 });
    expect(f.pick(request)).toBeDefined();
    expect(f.pick(request)).toBeUndefined();
    expect(h.hits()).toBe(2);
  });

  it('fires with a probability drawn from the injected random, reproducibly', () => {
    const run = (): boolean[] => {
      const f = new FaultInjector(seededRandom(42), () => 0);
      f.add({ match: { path: '/apis/' }, action: { type: 'status', code: 503 }, probability: 0.5 });
      return Array.from({ length: 40 }, () => f.pick(request) !== undefined);
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(first.filter(Boolean).length).toBeGreaterThan(5);
    expect(first.filter(Boolean).length).toBeLessThan(35);
  });

  it('stops after remove() and sums latency', () => {
    const f = new FaultInjector(seededRandom(1), () => 0);
    const h = f.add({ match: { namespace: 'kube-system' }, action: { type: 'hang' } });
    f.addLatency({ ms: 10 });
    f.addLatency({ match: { method: 'GET' }, ms: 100 });
    expect(f.latencyFor(request)).toBe(10);
    h.remove();
    expect(f.pick(request)).toBeUndefined();
  });

  it('builds the real Status for injected codes', () => {
    expect(faultError({ type: 'status', code: 429, retryAfterSeconds: 3 }, request)).toMatchObject({
      status: { code: 429, reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } },
      headers: { 'Retry-After': '3' },
    });
    expect(faultError({ type: 'status', code: 409 }, request).message).toBe(
      'Operation cannot be fulfilled on leases.coordination.k8s.io "l": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(faultError({ type: 'status', code: 500 }, request).status).toMatchObject({
      reason: 'InternalError',
      code: 500,
    });
  });
});
