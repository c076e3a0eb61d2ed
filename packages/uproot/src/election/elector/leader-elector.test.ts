import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from '../../clock/index.js';
import { ElectionConfigError } from '../errors.js';
import { MemoryLeaseStore } from '../lease-lock/memory-lease-store.js';
import { rawRecord, recordToLeaseSpec, type LeaderElectionRecord } from '../lease-lock/lease-record.js';
import type { LeaseLock } from '../lease-lock/lease-lock.js';
import { LeaderElector } from './leader-elector.js';
import type { LeaderElectionConfig } from './election-config.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const NS = 'kube-system';
const NAME = 'test-lease';
const HOUR = 3_600_000;

function world(identity = 'baz') {
  const clock = new VirtualClock(T0);
  const store = new MemoryLeaseStore({ clock });
  const ops: string[] = [];
  store.observe((op) => ops.push(op.outcome === 'ok' ? op.verb : `${op.verb}:${op.outcome}`));
  const events: string[] = [];
  const lock = store.lock({ namespace: NS, name: NAME, identity, eventSink: (e) => events.push(e.message) });
  return { clock, store, ops, events, lock };
}

function elector(
  lock: LeaseLock,
  clock: VirtualClock,
  overrides: Partial<LeaderElectionConfig> = {},
): LeaderElector {
  return new LeaderElector({
    lock,
    clock,
    leaseDurationMs: 10_000,
    renewDeadlineMs: 5_000,
    retryPeriodMs: 2_000,
    random: seededRandom(7),
    callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
    ...overrides,
  });
}

function record(holder: string, lds: number, at: number, transitions = 0): LeaderElectionRecord {
  return {
    holderIdentity: holder,
    leaseDurationSeconds: lds,
    acquireTime: at,
    renewTime: at,
    leaderTransitions: transitions,
  };
}

async function seed(store: MemoryLeaseStore, spec: LeaderElectionRecord | undefined): Promise<void> {
  await store
    .api('seed')
    .create({ metadata: { namespace: NS, name: NAME }, spec: spec ? recordToLeaseSpec(spec) : {} });
}

function stored(store: MemoryLeaseStore) {
  return store.peek(NS, NAME)?.spec;
}

describe('tryAcquireOrRenew: client-go vectors (reference §5 D.28–D.34)', () => {
  it('D.28 creates the lease when there is none', async () => {
    const w = world();
    const le = elector(w.lock, w.clock);
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect(w.ops).toEqual(['get:NotFound', 'create']);
    expect(stored(w.store)).toMatchObject({
      holderIdentity: 'baz',
      leaseTransitions: 0,
      leaseDurationSeconds: 10,
    });
    expect(le.isLeader()).toBe(true);
  });

  it('D.29 takes an object with an empty spec and counts a transition', async () => {
    const w = world();
    await seed(w.store, undefined);
    const le = elector(w.lock, w.clock);
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect(stored(w.store)).toMatchObject({ holderIdentity: 'baz', leaseTransitions: 1 });
  });

  it('D.30 waits out a lease held by bing (LDS 3), judged from when it was first seen', async () => {
    const w = world();
    await seed(w.store, record('bing', 3, T0 - 10 * HOUR)); // renewTime long ago: never trusted
    const le = elector(w.lock, w.clock);
    expect(await le.tryAcquireOrRenew()).toBe(false);
    expect(le.getLeader()).toBe('bing');
    await w.clock.advanceBy(2_999);
    expect(await le.tryAcquireOrRenew()).toBe(false);
    await w.clock.advanceBy(1);
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect(stored(w.store)).toMatchObject({ holderIdentity: 'baz', leaseTransitions: 1 });
  });

  it('D.31 takes over a record unchanged since an observation long ago', async () => {
    const w = world();
    const bing = record('bing', 10, T0);
    await seed(w.store, bing);
    const le = elector(w.lock, w.clock);
    le.primeObservation(bing, T0 - 1000 * HOUR, rawRecord(bing));
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect(stored(w.store)).toMatchObject({ holderIdentity: 'baz', leaseTransitions: 1 });
  });

  it('D.32 takes an empty holder at once, even when observed in the future', async () => {
    const w = world();
    const empty = record('', 10, T0);
    await seed(w.store, empty);
    const le = elector(w.lock, w.clock);
    le.primeObservation(empty, T0 + 1000 * HOUR, rawRecord(empty));
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect(stored(w.store)).toMatchObject({ holderIdentity: 'baz', leaseTransitions: 1 });
  });

  it('D.33 refuses a freshly observed holder (with LDS > 0 under a frozen clock, per the vector note)', async () => {
    const w = world();
    const bing = record('bing', 3, T0);
    await seed(w.store, bing);
    const le = elector(w.lock, w.clock);
    le.primeObservation(bing, T0 + 1000 * HOUR); // no raw primed: the read differs, observedTime := now
    expect(await le.tryAcquireOrRenew()).toBe(false);
    expect(le.getLeader()).toBe('bing');
    expect(stored(w.store)?.holderIdentity).toBe('bing');
  });

  it('D.33 caveat: with LDS 0 and a frozen clock the lease is expired at once (strict comparison)', async () => {
    const w = world();
    const bing = record('bing', 0, T0);
    await seed(w.store, bing);
    const le = elector(w.lock, w.clock);
    le.primeObservation(bing, T0 + 1000 * HOUR);
    expect(await le.tryAcquireOrRenew()).toBe(true);
  });

  it('D.34 an observed leader without a cached lease falls back from the fast path to get + update', async () => {
    const w = world();
    const baz = record('baz', 10, T0);
    await seed(w.store, baz);
    const le = elector(w.lock, w.clock);
    le.primeObservation(baz, T0);
    w.ops.length = 0;
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect(w.ops).toEqual(['get', 'update']); // the fast-path update never left the process
    expect(stored(w.store)).toMatchObject({ holderIdentity: 'baz', leaseTransitions: 0 });
  });
});

describe('fast path (D.35, D.36)', () => {
  it('D.35 the leader renews with its cached lease: get, create, update, update', async () => {
    const w = world();
    const le = elector(w.lock, w.clock);
    for (let i = 0; i < 3; i++) {
      expect(await le.tryAcquireOrRenew()).toBe(true);
      await w.clock.advanceBy(2_000);
    }
    expect(w.ops).toEqual(['get:NotFound', 'create', 'update', 'update']);
  });

  it('D.36 a conflict on the fast path falls back to get + update', async () => {
    const w = world();
    let updates = 0;
    w.store.setFaults((req) =>
      req.verb === 'update' && ++updates === 2 ? { error: 'Conflict' } : undefined,
    );
    const le = elector(w.lock, w.clock);
    for (let i = 0; i < 4; i++) {
      expect(await le.tryAcquireOrRenew()).toBe(true);
      await w.clock.advanceBy(2_000);
    }
    expect(w.ops).toEqual(['get:NotFound', 'create', 'update', 'update:Conflict', 'get', 'update', 'update']);
  });

  it('keeps acquireTime and transitions across renewals and writes MicroTime renewTime', async () => {
    const w = world();
    const le = elector(w.lock, w.clock);
    await le.tryAcquireOrRenew();
    await w.clock.advanceBy(2_345.678);
    await le.tryAcquireOrRenew();
    expect(stored(w.store)).toEqual({
      holderIdentity: 'baz',
      leaseDurationSeconds: 10,
      acquireTime: '2026-01-01T12:00:00.000000Z',
      renewTime: '2026-01-01T12:00:02.345678Z',
      leaseTransitions: 0,
    });
  });
});

describe('release (D.37)', () => {
  it('D.37 releases on cancel: holder "", LDS 1, transitions kept; events in order', async () => {
    const w = world();
    await seed(w.store, record('', 1, T0, 4));
    const le = elector(w.lock, w.clock, { releaseOnCancel: true });
    const ac = new AbortController();
    const done = le.run(ac.signal);
    await w.clock.advanceBy(5_000);
    expect(stored(w.store)?.holderIdentity).toBe('baz');
    ac.abort();
    await done;
    expect(stored(w.store)).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 5,
    });
    expect(w.events).toEqual(['baz became leader', 'baz stopped leading']);
  });

  it('D.37 retries the release once after a 409', async () => {
    const w = world();
    const le = elector(w.lock, w.clock, { releaseOnCancel: true });
    const ac = new AbortController();
    const done = le.run(ac.signal);
    await w.clock.advanceBy(3_000);
    let conflicts = 0;
    w.store.setFaults((req) =>
      req.verb === 'update' && conflicts++ === 0 ? { error: 'Conflict' } : undefined,
    );
    ac.abort();
    await done;
    expect(conflicts).toBeGreaterThanOrEqual(2);
    expect(stored(w.store)).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });

  it('does not write when another holder has the lease', async () => {
    const w = world();
    const le = elector(w.lock, w.clock);
    await le.tryAcquireOrRenew();
    const other = w.store.lock({ namespace: NS, name: NAME, identity: 'bing' });
    await other.get();
    await other.update(record('bing', 10, T0));
    w.ops.length = 0;
    expect(await le.release()).toBe(true);
    expect(w.ops).toEqual(['get']);
    expect(stored(w.store)?.holderIdentity).toBe('bing');
  });
});

describe('NewLeaderElector validation (D.38, D.39 and the full order)', () => {
  const base = (): LeaderElectionConfig => ({
    lock: world().lock,
    clock: new VirtualClock(T0),
    leaseDurationMs: 15_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 1_000,
    callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
  });
  const errorOf = (config: LeaderElectionConfig): string => {
    try {
      new LeaderElector(config);
      return 'ok';
    } catch (error) {
      expect(error).toBeInstanceOf(ElectionConfigError);
      return (error as Error).message;
    }
  };

  it('D.38 accepts LD 15s, RD 2s, RP 1s and rejects an empty identity', () => {
    expect(errorOf(base())).toBe('ok');
    expect(errorOf({ ...base(), lock: world('').lock })).toBe('Lock identity is empty');
  });

  it('D.39 rejects RD <= 1.2 × RP and LD = RD', () => {
    expect(errorOf({ ...base(), renewDeadlineMs: 10_000, retryPeriodMs: 9_000 })).toBe(
      'renewDeadline must be greater than retryPeriod*JitterFactor',
    );
    expect(errorOf({ ...base(), leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toBe(
      'leaseDuration must be greater than renewDeadline',
    );
    expect(errorOf({ ...base(), renewDeadlineMs: 1_200, retryPeriodMs: 1_000 })).toBe(
      'renewDeadline must be greater than retryPeriod*JitterFactor',
    );
    expect(errorOf({ ...base(), renewDeadlineMs: 1_201, retryPeriodMs: 1_000 })).toBe('ok');
  });

  it.each([
    [
      { leaseDurationMs: 0, renewDeadlineMs: 0, retryPeriodMs: 0 },
      'leaseDuration must be greater than renewDeadline',
    ],
    [
      { leaseDurationMs: 0, renewDeadlineMs: -1, retryPeriodMs: -1 },
      'leaseDuration must be greater than zero',
    ],
    [
      { leaseDurationMs: 5, renewDeadlineMs: 0, retryPeriodMs: -1 },
      'renewDeadline must be greater than zero',
    ],
    [{ leaseDurationMs: 5, renewDeadlineMs: 2, retryPeriodMs: 0 }, 'retryPeriod must be greater than zero'],
    [{ callbacks: { onStoppedLeading: () => undefined } }, 'OnStartedLeading callback must not be nil'],
    [{ callbacks: { onStartedLeading: () => undefined } }, 'OnStoppedLeading callback must not be nil'],
    [{ lock: undefined }, 'Lock must not be nil.'],
  ] as const)('checks in upstream order: %o → %s', (patch, message) => {
    expect(errorOf({ ...base(), ...(patch as Partial<LeaderElectionConfig>) })).toBe(message);
  });
});

describe('run loop', () => {
  it('tries at once, then every RP × (1 + U[0, 1.2)) while the lease is held elsewhere', async () => {
    const w = world();
    await seed(w.store, record('bing', 3_600, T0));
    const attempts: number[] = [];
    w.store.observe((op) => op.identity === 'baz' && op.verb === 'get' && attempts.push(w.clock.now() - T0));
    const le = elector(w.lock, w.clock);
    const ac = new AbortController();
    const done = le.run(ac.signal);
    await w.clock.advanceBy(60_000);
    ac.abort();
    await done;
    expect(attempts[0]).toBe(0);
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(gaps.length).toBeGreaterThan(12);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(2_000);
      expect(gap).toBeLessThan(4_400);
    }
    expect(new Set(gaps).size).toBeGreaterThan(5); // jittered, not fixed
  });

  it('reports every new leader asynchronously, the first included, and stops even if it never led', async () => {
    const w = world();
    await seed(w.store, record('bing', 10, T0));
    const leaders: string[] = [];
    let stopped = 0;
    const le = elector(w.lock, w.clock, {
      callbacks: {
        onStartedLeading: () => undefined,
        onStoppedLeading: () => stopped++,
        onNewLeader: (id) => leaders.push(id),
      },
    });
    const ac = new AbortController();
    const done = le.run(ac.signal);
    await w.clock.advanceBy(1_000);
    expect(leaders).toEqual(['bing']);
    await w.clock.advanceBy(15_000); // bing never renews: baz takes over after 10 s unchanged
    expect(leaders).toEqual(['bing', 'baz']);
    ac.abort();
    await done;
    expect(stopped).toBe(1);

    const idle = world('qux');
    let idleStopped = 0;
    const never = elector(idle.lock, idle.clock, {
      callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => idleStopped++ },
    });
    const cancelled = new AbortController();
    cancelled.abort();
    await never.run(cancelled.signal);
    expect(idleStopped).toBe(1);
  });

  it('stops leading when renewals fail for RenewDeadline, measured from the last good renewal', async () => {
    const w = world();
    let leadingSince = -1;
    let leadingUntil = -1;
    let stopped = -1;
    const le = elector(w.lock, w.clock, {
      callbacks: {
        onStartedLeading: (signal) => {
          leadingSince = w.clock.now();
          signal.addEventListener('abort', () => (leadingUntil = w.clock.now()));
        },
        onStoppedLeading: () => (stopped = w.clock.now()),
      },
    });
    let lastOk = 0;
    w.store.observe(
      (op) => op.identity === 'baz' && op.verb === 'update' && op.outcome === 'ok' && (lastOk = op.time),
    );
    const done = le.run(new AbortController().signal);
    await w.clock.advanceBy(10_000);
    expect(leadingSince).toBe(T0);
    w.store.setFaults(() => ({ error: 'Unavailable' }));
    const failedFrom = w.clock.now();
    await w.clock.advanceBy(30_000);
    await done;
    expect(lastOk).toBeGreaterThan(0);
    expect(lastOk).toBeLessThanOrEqual(failedFrom);
    // The round after the last good renewal starts RP later and gives up RD after that.
    expect(leadingUntil).toBe(lastOk + 2_000 + 5_000);
    expect(stopped).toBe(leadingUntil);
    expect(w.events).toEqual(['baz became leader', 'baz stopped leading']);
  });

  it('does not see a change below one second, and judges expiry by the holder’s written duration', async () => {
    const w = world();
    const le = elector(w.lock, w.clock, {
      leaseDurationMs: 60_000,
      renewDeadlineMs: 5_000,
      retryPeriodMs: 2_000,
    });
    const bing = w.store.lock({ namespace: NS, name: NAME, identity: 'bing' });
    await bing.create(record('bing', 4, T0 + 100));
    expect(await le.tryAcquireOrRenew()).toBe(false);
    await w.clock.advanceBy(2_000);
    await bing.update(record('bing', 4, T0 + 700)); // same second: same raw record
    expect(await le.tryAcquireOrRenew()).toBe(false);
    await w.clock.advanceBy(2_000); // 4 s after the first sighting, the holder's 4 s have passed
    expect(await le.tryAcquireOrRenew()).toBe(true);
  });
});
