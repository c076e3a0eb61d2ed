import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import { LeaseLockError } from '../errors.js';
import { MemoryLeaseStore } from './memory-lease-store.js';

const meta = { namespace: 'kube-system', name: 'l' };

describe('MemoryLeaseStore', () => {
  it('behaves like the lease API: 404, create, 409 on create-if-exists and on a stale resourceVersion', async () => {
    const store = new MemoryLeaseStore({ clock: new VirtualClock(0) });
    const api = store.api('a');
    await expect(api.read('kube-system', 'l')).rejects.toMatchObject({ reason: 'NotFound', status: 404 });
    const created = await api.create({ metadata: meta, spec: { holderIdentity: 'a' } });
    expect(created.metadata.resourceVersion).toBe('1');
    await expect(api.create({ metadata: meta })).rejects.toMatchObject({
      reason: 'AlreadyExists',
      status: 409,
    });
    const updated = await api.replace({ ...created, spec: { holderIdentity: 'b' } });
    expect(updated.metadata.resourceVersion).toBe('2');
    await expect(api.replace({ ...created, spec: { holderIdentity: 'c' } })).rejects.toMatchObject({
      reason: 'Conflict',
    });
    expect(store.peek('kube-system', 'l')?.spec).toEqual({ holderIdentity: 'b' });
    // Callers cannot reach into the store through returned objects.
    updated.spec!.holderIdentity = 'mutated';
    expect(store.peek('kube-system', 'l')?.spec?.holderIdentity).toBe('b');
  });

  it('lock.update needs a previous get or create', async () => {
    const store = new MemoryLeaseStore({ clock: new VirtualClock(0) });
    const lock = store.lock({ ...meta, identity: 'a' });
    const error = await lock
      .update({
        holderIdentity: 'a',
        leaseDurationSeconds: 1,
        acquireTime: 0,
        renewTime: 0,
        leaderTransitions: 0,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLockError);
    expect((error as Error).message).toBe('lease not initialized, call get or create first');
  });

  it('injects errors and delays; a write whose answer is late has still happened', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryLeaseStore({ clock });
    const seen: string[] = [];
    store.observe((op) => seen.push(`${op.time}:${op.verb}:${op.outcome}`));
    store.setFaults((req) =>
      req.verb === 'create' ? { delayMs: 100, responseDelayMs: 900 } : { error: 'Unavailable' },
    );
    const api = store.api('a');
    let answered = -1;
    const pending = api.create({ metadata: meta }).then(() => (answered = clock.now()));
    await clock.advanceBy(500);
    expect(store.peek('kube-system', 'l')).toBeDefined();
    expect(answered).toBe(-1);
    await clock.advanceBy(500);
    await pending;
    expect(answered).toBe(1000);
    await expect(api.read('kube-system', 'l')).rejects.toMatchObject({ reason: 'Unavailable', status: 503 });
    expect(seen).toEqual(['100:create:ok', '1000:get:Unavailable']);
  });

  it('a request whose caller gives up before it arrives is never applied', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryLeaseStore({ clock });
    store.setFaults(() => ({ delayMs: 1000 }));
    const ac = new AbortController();
    const pending = store.api('a').create({ metadata: meta }, ac.signal);
    await clock.advanceBy(400);
    ac.abort();
    await expect(pending).rejects.toMatchObject({ reason: 'Timeout' });
    await clock.advanceBy(1000);
    expect(store.peek('kube-system', 'l')).toBeUndefined();
  });
});
