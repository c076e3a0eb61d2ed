import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import { UprootError } from '../../errors/index.js';
import type { KubeObject, ObjectStore } from '../ports.js';
import type { LeaseFacts } from './gate-facts.js';
import {
  createLeaseHandoff,
  expiredSightings,
  nextExpiry,
  releaseExpiredLease,
  releaseLeasesHeldBy,
  sightLeases,
  type LeaseSighting,
} from './lease-handoff.js';

const KCM = 'kube-controller-manager';
const WATCHED = new Set([KCM]);
const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');

function lease(holder: string, renewedAt: number, extra: Partial<LeaseFacts> = {}): LeaseFacts {
  return {
    namespace: 'kube-system',
    name: KCM,
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: iso(T0),
    renewTime: iso(renewedAt),
    leaseTransitions: 3,
    ...extra,
  };
}

class HttpStatusError extends UprootError {
  constructor(readonly status: number) {
    super('UP-KUBE-API', `HTTP ${status}`, { source: 'environment' });
  }
}

/** One Lease object behind get/replace with resourceVersion checks, as the API server keeps it. */
function oneLease(spec: LeaseFacts, options: { forbid?: boolean } = {}) {
  let object: KubeObject = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: spec.name, namespace: spec.namespace, resourceVersion: '1' },
    spec: {
      holderIdentity: spec.holderIdentity,
      leaseDurationSeconds: spec.leaseDurationSeconds,
      acquireTime: spec.acquireTime,
      renewTime: spec.renewTime,
      leaseTransitions: spec.leaseTransitions,
    },
  };
  const writes: KubeObject[] = [];
  let beforeReplace: (() => void) | undefined;
  const store: Pick<ObjectStore, 'get' | 'replace'> = {
    get: async () => structuredClone(object),
    replace: async (next) => {
      beforeReplace?.();
      if (options.forbid) throw new HttpStatusError(403);
      if (next.metadata?.resourceVersion !== object.metadata?.resourceVersion) throw new HttpStatusError(409);
      const version = String(Number(object.metadata?.resourceVersion) + 1);
      object = { ...structuredClone(next), metadata: { ...next.metadata, resourceVersion: version } };
      writes.push(object);
      return object;
    },
  };
  return {
    store,
    writes,
    current: () => object,
    renewBeforeNextWrite: (renewedAt: number) => {
      beforeReplace = () => {
        const s = object.spec as Record<string, unknown>;
        object = {
          ...object,
          metadata: {
            ...object.metadata,
            resourceVersion: String(Number(object.metadata?.resourceVersion) + 1),
          },
          spec: { ...s, renewTime: iso(renewedAt) },
        };
        beforeReplace = undefined;
      };
    },
  };
}

describe('sightLeases', () => {
  it('keeps the first sighting of an unchanged record and starts again when the holder renews', () => {
    const first = sightLeases(new Map(), [lease('cp1_a', T0)], WATCHED, T0 + 400);
    const same = sightLeases(first, [lease('cp1_a', T0)], WATCHED, T0 + 1_400);
    expect(same.get(`kube-system/${KCM}`)?.since).toBe(T0 + 400);
    const renewed = sightLeases(same, [lease('cp1_a', T0 + 2_000)], WATCHED, T0 + 2_400);
    expect(renewed.get(`kube-system/${KCM}`)?.since).toBe(T0 + 2_400);
  });

  it('reads the same instant written with more or fewer fraction digits as the same record', () => {
    const first = sightLeases(new Map(), [lease('cp1_a', T0)], WATCHED, T0);
    const again = sightLeases(
      first,
      [lease('cp1_a', T0, { renewTime: new Date(T0).toISOString() })],
      WATCHED,
      T0 + 5_000,
    );
    expect(again.get(`kube-system/${KCM}`)?.since).toBe(T0);
  });

  it('ignores leases the run does not watch (the migration lock, other components)', () => {
    const seen = sightLeases(new Map(), [lease('x', T0, { name: 'uproot-migration-lock' })], WATCHED, T0);
    expect(seen.size).toBe(0);
  });
});

describe('expiredSightings and nextExpiry', () => {
  const seen = (since: number, l: LeaseFacts): Map<string, LeaseSighting> =>
    new Map([[`kube-system/${l.name}`, { lease: l, since }]]);

  it('a record unchanged for its lease duration since first seen has expired, not a moment before', () => {
    const s = seen(T0 + 700, lease('cp1_a', T0));
    expect(expiredSightings(s, T0 + 15_699)).toEqual([]);
    expect(expiredSightings(s, T0 + 15_700)).toHaveLength(1);
    expect(nextExpiry(s, T0 + 3_000)).toBe(T0 + 15_700);
    expect(nextExpiry(s, T0 + 15_700)).toBeUndefined();
  });

  it('a lease with no holder (already released) never expires', () => {
    const s = seen(T0, lease('', T0, { leaseDurationSeconds: 1 }));
    expect(expiredSightings(s, T0 + 60_000)).toEqual([]);
    expect(nextExpiry(s, T0)).toBeUndefined();
  });
});

describe('releaseExpiredLease', () => {
  it('writes client-go’s release record with the resourceVersion it read, keeping the transitions', async () => {
    const l = lease('cp1_a', T0);
    const api = oneLease(l);
    const outcome = await releaseExpiredLease(api.store, { lease: l, since: T0 }, T0 + 15_000);
    expect(outcome).toBe('released');
    expect(api.current().spec).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: iso(T0 + 15_000),
      renewTime: iso(T0 + 15_000),
      leaseTransitions: 3,
    });
  });

  it('leaves a lease that was renewed since the sighting alone', async () => {
    const api = oneLease(lease('cp1_a', T0 + 2_000));
    const outcome = await releaseExpiredLease(
      api.store,
      { lease: lease('cp1_a', T0), since: T0 },
      T0 + 15_000,
    );
    expect(outcome).toBe('changed');
    expect(api.writes).toEqual([]);
  });

  it('loses to a renewal that lands between its read and its write (409): the holder keeps the lease', async () => {
    const l = lease('cp1_a', T0);
    const api = oneLease(l);
    api.renewBeforeNextWrite(T0 + 15_100);
    const outcome = await releaseExpiredLease(api.store, { lease: l, since: T0 }, T0 + 15_000);
    expect(outcome).toBe('changed');
    expect((api.current().spec as { holderIdentity: string }).holderIdentity).toBe('cp1_a');
  });

  it('says forbidden when the kubeconfig may not update leases', async () => {
    const l = lease('cp1_a', T0);
    const api = oneLease(l, { forbid: true });
    expect(await releaseExpiredLease(api.store, { lease: l, since: T0 }, T0 + 15_000)).toBe('forbidden');
  });
});

describe('releaseLeasesHeldBy', () => {
  it('releases what the ended process holds, with the resourceVersion it read', async () => {
    const api = oneLease(lease('cp1_a', T0));
    const outcomes = await releaseLeasesHeldBy(api.store, [KCM], { identity: 'cp1_a' }, T0 + 4_000);
    expect(outcomes).toEqual([{ name: KCM, outcome: 'released' }]);
    expect(api.current().spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 3,
    });
  });

  it('leaves a lease another identity holds, or one renewed since the new pod started', async () => {
    const other = oneLease(lease('cp2_b', T0));
    expect(await releaseLeasesHeldBy(other.store, [KCM], { identity: 'cp1_a' }, T0 + 4_000)).toEqual([
      { name: KCM, outcome: 'changed' },
    ]);
    const renewed = oneLease(lease('cp1_a', T0 + 3_000));
    const holder = { identity: 'cp1_a', startedAt: T0 + 3_000 };
    expect(await releaseLeasesHeldBy(renewed.store, [KCM], holder, T0 + 4_000)).toEqual([
      { name: KCM, outcome: 'changed' },
    ]);
    expect([...other.writes, ...renewed.writes]).toEqual([]);
  });

  it('loses to a takeover between its read and its write (409), and says forbidden without update rights', async () => {
    const racing = oneLease(lease('cp1_a', T0));
    racing.renewBeforeNextWrite(T0 + 3_500);
    expect(await releaseLeasesHeldBy(racing.store, [KCM], { identity: 'cp1_a' }, T0 + 4_000)).toEqual([
      { name: KCM, outcome: 'changed' },
    ]);
    const forbidden = oneLease(lease('cp1_a', T0), { forbid: true });
    expect(await releaseLeasesHeldBy(forbidden.store, [KCM], { identity: 'cp1_a' }, T0 + 4_000)).toEqual([
      { name: KCM, outcome: 'forbidden' },
    ]);
  });
});

describe('createLeaseHandoff', () => {
  it('releases once after the lease duration, says so, then waits for the next record', async () => {
    const clock = new VirtualClock(T0);
    const l = lease('cp1_a', T0);
    const api = oneLease(l);
    const notes: string[] = [];
    const handoff = createLeaseHandoff({
      objects: api.store,
      clock,
      watched: WATCHED,
      notify: (m) => notes.push(m),
    });
    expect(await handoff.look([l])).toBe(T0 + 15_000);
    await clock.advanceBy(14_000);
    expect(await handoff.look([l])).toBe(T0 + 15_000);
    expect(api.writes).toEqual([]);
    await clock.advanceBy(1_000);
    await handoff.look([l]);
    expect(api.writes).toHaveLength(1);
    expect(notes).toEqual([
      expect.stringContaining('lease kube-system/kube-controller-manager: holder cp1_a'),
    ]);
    await clock.advanceBy(1_000);
    const released = lease('', T0 + 15_000, { leaseDurationSeconds: 1, acquireTime: iso(T0 + 15_000) });
    expect(await handoff.look([released])).toBeUndefined();
    expect(api.writes).toHaveLength(1);
  });

  it('stops trying after a 403 and says what to grant', async () => {
    const clock = new VirtualClock(T0);
    const l = lease('cp1_a', T0);
    const api = oneLease(l, { forbid: true });
    const notes: string[] = [];
    const handoff = createLeaseHandoff({
      objects: api.store,
      clock,
      watched: WATCHED,
      notify: (m) => notes.push(m),
    });
    await handoff.look([l]);
    await clock.advanceBy(15_000);
    await handoff.look([l]);
    await clock.advanceBy(15_000);
    await handoff.look([l]);
    expect(notes).toEqual([expect.stringContaining('grant update on leases in kube-system')]);
  });
});
