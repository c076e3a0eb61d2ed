import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  HolderProcessState,
  LocalProcesses,
} from '../../../packages/uproot/src/engine/lock/holder-process.js';
import { ConfigMapJournalStore } from '../../../packages/uproot/src/adapters/kube/journal-store.js';
import { MigrationLock } from '../../../packages/uproot/src/adapters/kube/migration-lock.js';
import { beginApply } from '../../../packages/uproot/src/engine/journal/journal-transitions.js';
import { journalFor, plan, step, cordon } from '../../../packages/uproot/src/engine/testing/plan-fixtures.js';
import { engineSandbox, type EngineSandbox } from './harness.js';

let sb: EngineSandbox;
beforeEach(async () => {
  sb = await engineSandbox();
});
afterEach(async () => {
  await sb.close();
});

const location = { namespace: 'kube-system', name: 'uproot-migration' };
const p = plan([step('cordon-control-plane', [cordon()]), step('install-ccm', [])]);

describe('ConfigMap journal store', () => {
  it('round-trips the journal, one key per step, through a 409 caused by a concurrent label edit', async () => {
    const store = new ConfigMapJournalStore(sb.objects(), location);
    expect(await store.load()).toBeUndefined();
    const first = await store.save(journalFor(p));
    expect(first.revision).toBe(1);

    const cm = sb.server.store.get('v1/configmaps', 'kube-system', 'uproot-migration')!;
    expect(Object.keys(cm.data as object).sort()).toEqual([
      'journal.json',
      'lease-timeline.json',
      'plan.json',
      'step.cordon-control-plane.json',
      'step.install-ccm.json',
    ]);
    // Someone labels the ConfigMap: its resourceVersion moves, the journal does not.
    sb.server.store.patch('v1/configmaps', 'kube-system', 'uproot-migration', 'merge', {
      metadata: { labels: { team: 'ops' } },
    });

    const second = await store.save(beginApply(first, 'cordon-control-plane', [], Date.UTC(2026, 0, 1, 1)));
    expect(second.revision).toBe(2);
    const reread = await new ConfigMapJournalStore(sb.objects(), location).load();
    expect(reread).toEqual(second);
    expect(reread?.steps[0]?.state).toBe('applying');
  });

  it('adopts its own write when a retried request had landed', async () => {
    const store = new ConfigMapJournalStore(sb.objects(), location);
    const saved = await store.save(journalFor(p));
    const next = beginApply(saved, 'cordon-control-plane', [], 0);
    // The same save lands through another client first (as if our first attempt's answer was lost).
    const other = new ConfigMapJournalStore(sb.objects(), location);
    await other.load();
    await other.save(next);
    expect((await store.save(next)).revision).toBe(saved.revision + 1);
  });

  it('stops when another run wrote the journal meanwhile', async () => {
    const mine = new ConfigMapJournalStore(sb.objects(), location);
    const saved = await mine.save(journalFor(p));
    const theirs = new ConfigMapJournalStore(sb.objects(), location);
    const loaded = (await theirs.load())!;
    await theirs.save(beginApply(loaded, 'install-ccm', [], 0));
    await expect(mine.save(beginApply(saved, 'cordon-control-plane', [], 0))).rejects.toMatchObject({
      code: 'UP-JOURNAL-CONFLICT',
      exitCode: 2,
    });
  });
});

describe('migration lock', () => {
  const lock = (holder: string) =>
    new MigrationLock(sb.objects(), {
      namespace: 'kube-system',
      holder,
      clock: sb.clock,
      purpose: 'uproot migrate',
    });

  it('lets one run proceed and refuses the second with the holder and its age', async () => {
    const a = lock('run-a');
    await a.acquire();
    await sb.clock.advanceBy(12_000);
    await expect(lock('run-b').acquire()).rejects.toMatchObject({
      code: 'UP-LOCK-HELD',
      exitCode: 2,
      message: expect.stringMatching(/run-a \(uproot migrate\), last renewed 12s ago/),
    });
    await a.release();
    await lock('run-b').acquire();
    expect(
      (
        sb.server.store.get('coordination.k8s.io/v1/leases', 'kube-system', 'uproot-migration-lock')
          ?.spec as { holderIdentity: string }
      ).holderIdentity,
    ).toBe('run-b');
  });

  it('renews while the run works, and a crashed run’s lock is taken over after it expires', async () => {
    const a = lock('run-a');
    await a.acquire();
    a.startRenewing(() => undefined);
    await sb.clock.advanceBy(5 * 60_000);
    await expect(lock('run-b').acquire()).rejects.toMatchObject({ code: 'UP-LOCK-HELD' });
    // run-a crashes: it stops renewing without releasing.
    const crashed = a as unknown as { renewal?: { controller: AbortController } };
    crashed.renewal?.controller.abort();
    await sb.clock.advanceBy(61_000);
    expect(await lock('run-b').acquire()).toEqual({
      tookOverFrom: 'run-a',
      takeover: { from: 'run-a', because: 'expired' },
    });
  });

  it('takes over at once from a holder whose process on this machine is gone, and waits for one elsewhere', async () => {
    const pids = new Map<string, HolderProcessState>();
    const processes = (pid: number, host = 'laptop'): LocalProcesses => ({
      self: () => ({ hostname: host, pid, start: `boot/ns/${pid}` }),
      stateOf: (h) => (h.hostname !== host ? 'elsewhere' : (pids.get(String(h.pid)) ?? 'running')),
    });
    const withProcesses = (holder: string, p: LocalProcesses) =>
      new MigrationLock(sb.objects(), { namespace: 'kube-system', holder, clock: sb.clock, processes: p });
    await withProcesses('run-a', processes(4242)).acquire();
    const annotations = sb.server.store.get(
      'coordination.k8s.io/v1/leases',
      'kube-system',
      'uproot-migration-lock',
    )?.metadata?.annotations as Record<string, string>;
    expect(JSON.parse(annotations['uproot.dev/holder-process']!)).toEqual({
      hostname: 'laptop',
      pid: 4242,
      start: 'boot/ns/4242',
    });
    await sb.clock.advanceBy(3_000);
    // Still running: held, naming the process.
    await expect(withProcesses('run-b', processes(5000)).acquire()).rejects.toMatchObject({
      code: 'UP-LOCK-HELD',
      message: expect.stringContaining('process 4242 on laptop'),
    });
    // On another machine nobody can tell: held until the lease expires.
    pids.set('4242', 'gone');
    await expect(withProcesses('run-b', processes(5000, 'bastion')).acquire()).rejects.toMatchObject({
      code: 'UP-LOCK-HELD',
    });
    // Here, 3 s after its last renewal, its process is gone: taken at once.
    expect(await withProcesses('run-b', processes(5000)).acquire()).toEqual({
      tookOverFrom: 'run-a',
      takeover: {
        from: 'run-a',
        because: 'holder-gone',
        process: { hostname: 'laptop', pid: 4242, start: 'boot/ns/4242' },
      },
    });
  });

  it('tells a run it lost the lock to another', async () => {
    const a = lock('run-a');
    await a.acquire();
    const lost: Error[] = [];
    a.startRenewing((e) => lost.push(e));
    sb.server.store.patch('coordination.k8s.io/v1/leases', 'kube-system', 'uproot-migration-lock', 'merge', {
      spec: { holderIdentity: 'intruder' },
    });
    await sb.clock.advanceBy(21_000);
    expect(lost.map((e) => e.message)).toEqual([expect.stringMatching(/taken by intruder/)]);
    expect(() => a.assertHeld()).toThrow(/taken by intruder/);
  });
});
