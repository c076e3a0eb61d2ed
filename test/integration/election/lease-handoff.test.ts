/**
 * The run's lease handoff over real HTTP against the sandbox API server: two client-go electors (KubeLeaseLock)
 * contend for kube-controller-manager, uproot's lease poller looks every second through its gate reader
 * (KubeObjects), and the handoff releases a dead holder's lease once it has been unchanged for its lease
 * duration. Everything runs in virtual time; every request is tracked on the clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { KubeLeaseLock, LeaderElector } from '../../../packages/uproot/src/election/index.js';
import { KubeClient, kubeconfigTransport } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { KubeObjects } from '../../../packages/uproot/src/adapters/kube/kube-objects.js';
import { KubeGateReader } from '../../../packages/uproot/src/adapters/kube/gate-reader.js';
import { createLeaseHandoff } from '../../../packages/uproot/src/engine/gates/lease-handoff.js';
import { startLeasePoller } from '../../../packages/uproot/src/engine/gates/lease-poller.js';
import {
  startKubeApiServer,
  writeKubeconfig,
  type KubeApiServer,
} from '../../../packages/sandbox/src/apiserver/index.js';

const KCM_USER = { name: 'kcm', token: 'kcm-token-not-secret', user: 'system:kube-controller-manager' };
const ADMIN = { name: 'admin', token: 'admin-token-not-secret', user: 'admin', groups: ['system:masters'] };
const LEASE = 'kube-controller-manager';

let server: KubeApiServer;
let dir: string;

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
  dir = mkdtempSync(join(tmpdir(), 'uproot-handoff-'));
  server = await startKubeApiServer({ identities: [ADMIN, KCM_USER] });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function elector(clock: VirtualClock, identity: string, seed: number) {
  const leading: string[] = [];
  const lock = new KubeLeaseLock({
    kubeConfig: kubeConfigFor(KCM_USER),
    namespace: 'kube-system',
    name: LEASE,
    identity,
    clock,
  });
  const le = new LeaderElector({
    lock,
    clock,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    random: seededRandom(seed),
    callbacks: {
      onStartedLeading: () => void leading.push(identity),
      onStoppedLeading: () => undefined,
    },
  });
  const stop = new AbortController();
  return { le, leading, stop, run: () => le.run(stop.signal) };
}

/** uproot's side: the poller with the handoff, over its own client and gate reader. */
function uprootLooks(clock: VirtualClock, notes: string[]) {
  const kc = kubeConfigFor(ADMIN);
  const objects = new KubeObjects(new KubeClient(kubeconfigTransport(kc), { clock }, server.url));
  const watched = new Set([LEASE]);
  return startLeasePoller({
    reader: new KubeGateReader(objects),
    clock,
    watched,
    handoff: createLeaseHandoff({ objects, clock, watched, notify: (m) => notes.push(m) }),
  });
}

async function readLease() {
  return kubeConfigFor(ADMIN)
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ name: LEASE, namespace: 'kube-system' });
}

describe('the lease handoff against the sandbox API server', () => {
  it('a live holder that renews is never released', async () => {
    const clock = new VirtualClock(Date.now());
    const notes: string[] = [];
    const a = elector(clock, 'cp-a_live', 1);
    const runA = a.run();
    await clock.advanceBy(100);
    const looks = uprootLooks(clock, notes);
    await clock.advanceBy(60_000);
    await looks.stop();
    const timeline = looks.drain();
    expect(notes).toEqual([]);
    expect(timeline.map((r) => r.holder)).not.toContain('');
    expect((await readLease()).spec?.holderIdentity).toBe('cp-a_live');
    a.stop.abort();
    await runA;
    await kubeConfigFor(ADMIN)
      .makeApiClient(CoordinationV1Api)
      .deleteNamespacedLease({ name: LEASE, namespace: 'kube-system' });
  });

  it('a dead holder’s lease is released after its lease duration, and the standby takes it at its next try', async () => {
    const clock = new VirtualClock(Date.now());
    const notes: string[] = [];
    const a = elector(clock, 'cp-a_dies', 2);
    const b = elector(clock, 'cp-b_waits', 3);
    const runA = a.run();
    await clock.advanceBy(100);
    const runB = b.run();
    const looks = uprootLooks(clock, notes);
    await clock.advanceBy(20_000);
    expect(a.leading).toEqual(['cp-a_dies']);
    const before = await readLease();
    const transitions = before.spec?.leaseTransitions ?? 0;

    a.stop.abort(); // a restart without ReleaseOnCancel: the lease stays as last renewed
    await runA;
    const lastRenewal = Date.parse(String((await readLease()).spec?.renewTime));
    await clock.advanceBy(30_000);
    await looks.stop();

    expect(b.leading).toEqual(['cp-b_waits']);
    const taken = await readLease();
    expect(taken.spec?.holderIdentity).toBe('cp-b_waits');
    // The release keeps the transitions (client-go release()); the standby's takeover counts one.
    expect(taken.spec?.leaseTransitions).toBe(transitions + 1);
    const handover = Date.parse(String(taken.spec?.acquireTime)) - lastRenewal;
    // Not before the lease duration the standbys themselves wait; within the run's one-second look and
    // the standby's longest jittered retry (2 s × 2.2) after it.
    expect(handover).toBeGreaterThanOrEqual(15_000);
    expect(handover).toBeLessThanOrEqual(15_000 + 1_000 + 4_400);
    const holders = looks.drain().map((r) => r.holder);
    expect(holders).toEqual(['cp-a_dies', '', 'cp-b_waits']);
    expect(notes).toEqual([expect.stringContaining('holder cp-a_dies last renewed')]);
    b.stop.abort();
    await runB;
  });
});
