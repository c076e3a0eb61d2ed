/**
 * KubeLeaseLock over real HTTP against the sandbox API server: two electors on the wire, handover after a
 * crash, optimistic concurrency, MicroTime on the wire, RBAC refusals, timeouts. Elections run in virtual
 * time; every request is tracked on the clock, so time never moves while one is in flight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealClock, seededRandom, VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import {
  KubeLeaseLock,
  LeaderElector,
  LeaseLockError,
  kubeLeaseApi,
  type LeaderElectionEvent,
} from '../../../packages/uproot/src/election/index.js';
import { rehearseMigration } from '../../../packages/sandbox/src/rehearsal/index.js';
import {
  startKubeApiServer,
  writeKubeconfig,
  type KubeApiServer,
} from '../../../packages/sandbox/src/apiserver/index.js';

const KCM_USER = { name: 'kcm', token: 'kcm-token-not-secret', user: 'system:kube-controller-manager' };
const ADMIN = { name: 'admin', token: 'admin-token-not-secret', user: 'admin', groups: ['system:masters'] };

let server: KubeApiServer;
let dir: string;
let kcm: KubeConfig;
let admin: KubeConfig;

function kubeConfigFor(identity: typeof KCM_USER | typeof ADMIN): KubeConfig {
  const path = join(dir, `${identity.name}.kubeconfig`);
  writeKubeconfig(
    path,
    [server.kubeconfigEntry(identity.name, { contextName: identity.name })],
    identity.name,
  );
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'uproot-election-'));
  server = await startKubeApiServer({ identities: [ADMIN, KCM_USER] });
  kcm = kubeConfigFor(KCM_USER);
  admin = kubeConfigFor(ADMIN);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function elector(clock: VirtualClock, identity: string, lease: string, events: LeaderElectionEvent[] = []) {
  const leading: string[] = [];
  const lock = new KubeLeaseLock({
    kubeConfig: kcm,
    namespace: 'kube-system',
    name: lease,
    identity,
    clock,
    eventSink: (e) => events.push(e),
  });
  const le = new LeaderElector({
    lock,
    clock,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    random: seededRandom(identity.length),
    callbacks: {
      onStartedLeading: (signal) => {
        leading.push(identity);
        signal.addEventListener('abort', () => leading.splice(leading.indexOf(identity), 1));
      },
      onStoppedLeading: () => undefined,
    },
  });
  return { le, lock, leading };
}

async function readLease(name: string) {
  return admin.makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace: 'kube-system' });
}

describe('KubeLeaseLock against the sandbox API server', () => {
  it('two electors over HTTP: one wins and renews; killing it hands over only after the lease expires', async () => {
    const clock = new VirtualClock(Date.now());
    const events: LeaderElectionEvent[] = [];
    const a = elector(clock, 'cp-a_1111', 'kube-controller-manager', events);
    const b = elector(clock, 'cp-b_2222', 'kube-controller-manager', events);
    const stopA = new AbortController();
    const stopB = new AbortController();
    const runA = a.le.run(stopA.signal);
    await clock.advanceBy(100);
    const runB = b.le.run(stopB.signal);
    await clock.advanceBy(30_000);

    expect(a.leading).toEqual(['cp-a_1111']);
    expect(b.leading).toEqual([]);
    expect(b.le.getLeader()).toBe('cp-a_1111');
    const held = await readLease('kube-controller-manager');
    expect(held.spec?.holderIdentity).toBe('cp-a_1111');
    expect(held.spec?.leaseDurationSeconds).toBe(15);
    expect(held.spec?.leaseTransitions).toBe(0);
    expect(String(held.spec?.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/); // MicroTime on the wire

    const killedAt = clock.now();
    stopA.abort();
    await runA;
    await clock.advanceBy(12_000);
    expect(b.leading).toEqual([]); // the dead leader's lease has not expired yet
    expect((await readLease('kube-controller-manager')).spec?.holderIdentity).toBe('cp-a_1111');
    await clock.advanceBy(15_000);
    expect(b.leading).toEqual(['cp-b_2222']);
    const taken = await readLease('kube-controller-manager');
    expect(taken.spec?.holderIdentity).toBe('cp-b_2222');
    expect(taken.spec?.leaseTransitions).toBe(1);
    const tookAt = Date.parse(String(taken.spec?.acquireTime));
    expect(tookAt - killedAt).toBeGreaterThanOrEqual(13_000);
    expect(events.map((e) => e.message)).toEqual([
      'cp-a_1111 became leader',
      'cp-a_1111 stopped leading',
      'cp-b_2222 became leader',
    ]);
    stopB.abort();
    await runB;
  });

  it('update uses the cached resourceVersion: a stale writer gets a 409 Conflict', async () => {
    const clock = new VirtualClock(Date.now());
    const first = new KubeLeaseLock({
      kubeConfig: kcm,
      namespace: 'kube-system',
      name: 'kube-controller-manager',
      identity: 'x',
      clock,
    });
    const second = new KubeLeaseLock({
      kubeConfig: kcm,
      namespace: 'kube-system',
      name: 'kube-controller-manager',
      identity: 'y',
      clock,
    });
    const now = clock.now();
    const record = {
      holderIdentity: 'x',
      leaseDurationSeconds: 15,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 7,
    };
    await first.get();
    await second.get();
    await second.update({ ...record, holderIdentity: 'y' });
    const error = await first.update(record).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLockError);
    expect(error).toMatchObject({ reason: 'Conflict', status: 409 });
    const { record: current, raw } = await first.get();
    expect(current.holderIdentity).toBe('y');
    expect(JSON.parse(raw)).toMatchObject({ holderIdentity: 'y', leaderTransitions: 7 });
  });

  it('without RBAC on the migration lease the KCM user gets a 403, and the elector does not try to create it', async () => {
    const clock = new VirtualClock(Date.now());
    const { le, lock } = elector(clock, 'cp-a_3333', 'cloud-provider-extraction-migration');
    const error = await lock.get().catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'Forbidden', status: 403 });
    expect((error as Error).message).toContain('forbidden');
    expect(await le.tryAcquireOrRenew()).toBe(false);
    await expect(readLease('cloud-provider-extraction-migration')).rejects.toMatchObject({ code: 404 });

    // The patch the docs give: allow the leader-locking role on the migration lease.
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const role = await rbac.readNamespacedRole({
      name: 'system::leader-locking-kube-controller-manager',
      namespace: 'kube-system',
    });
    role.rules = [
      ...(role.rules ?? []),
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['cloud-provider-extraction-migration'],
        verbs: ['create', 'list', 'get', 'update'],
      },
    ];
    await rbac.replaceNamespacedRole({ name: role.metadata!.name!, namespace: 'kube-system', body: role });
    expect(await le.tryAcquireOrRenew()).toBe(true);
    expect((await readLease('cloud-provider-extraction-migration')).spec?.holderIdentity).toBe('cp-a_3333');
  });

  it('a request that gets no answer times out on the lock’s clock and reads as a Timeout', async () => {
    const handle = server.faults.add({
      match: { resource: 'leases', name: 'slow' },
      action: { type: 'hang' },
    });
    try {
      const lock = new KubeLeaseLock({
        kubeConfig: kcm,
        namespace: 'kube-system',
        name: 'slow',
        identity: 'z',
        clock: new RealClock(),
        requestTimeoutMs: 150,
      });
      await expect(lock.get()).rejects.toMatchObject({ reason: 'Timeout' });
    } finally {
      handle.remove();
    }
  });
});

describe('rehearseMigration with the leases on the sandbox API server', () => {
  it('hands the migrated controllers over with no overlap, over HTTP, and the watcher agrees with the ledger', async () => {
    // Plain http: with TLS every client-node request costs a handshake (~25 ms here), and this run makes ~1,000.
    const plain = await startKubeApiServer({ identities: [ADMIN], tls: false });
    const path = join(dir, 'plain.kubeconfig');
    writeKubeconfig(path, [plain.kubeconfigEntry('admin', { contextName: 'plain' })], 'plain');
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    const clock = new VirtualClock(Date.now());
    const api = kubeLeaseApi(kc.makeApiClient(CoordinationV1Api), clock, 5_000);
    const report = await rehearseMigration({
      leaderMigration: true,
      seed: 11,
      clock,
      // Shorter than the memory-store rehearsal: every renewal here is a real HTTPS request.
      nodes: 2,
      warmupMs: 20_000,
      settleMs: 30_000,
      restartDowntimeMs: 10_000,
      leases: {
        lock: (identity, name) =>
          new KubeLeaseLock({
            kubeConfig: kc,
            namespace: 'kube-system',
            name: `rehearsal-${name}`,
            identity,
            clock,
          }),
        watchApi: {
          read: (namespace, name, signal) => api.read(namespace, `rehearsal-${name}`, signal),
          create: (lease, signal) => api.create(lease, signal),
          replace: (lease, signal) => api.replace(lease, signal),
        },
      },
    });
    expect(report.figures.worstOverlapSeconds).toBe(0);
    expect(report.figures.worstGapSeconds).toBeLessThanOrEqual(report.figures.gapBoundSeconds);
    expect(report.ledger.controllers.service!.intervals.at(-1)!.component).toBe('cloud-controller-manager');
    expect(report.disagreements.filter((d) => !d.explained)).toEqual([]);
    const migration = await api.read('kube-system', 'rehearsal-cloud-provider-extraction-migration');
    expect(migration.spec?.holderIdentity).toMatch(/_ccm-/);
    await plain.close();
  });
});
