import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/index.js';
import type { Journal } from '../journal/journal-schema.js';
import { journalFor, plan, step } from '../testing/plan-fixtures.js';
import type { LeaseFacts } from './gate-facts.js';
import { startLeasePoller, stopKeepingLooks, type LookStore } from './lease-poller.js';

const KCM = 'kube-controller-manager';

/** A KCM lease that changes holder as `rke up` rolls the managers while the run waits for a person. */
function rolling(clock: VirtualClock, start: number) {
  return {
    leases: async (): Promise<LeaseFacts[]> => {
      const s = (clock.now() - start) / 1000;
      const [holder, acquired] = s < 4 ? ['cp1_b', 0] : s < 20 ? ['cp2_e', 19] : ['cp1_d', 37];
      const at = (x: number): string => new Date(start + x * 1000).toISOString();
      return [
        {
          namespace: 'kube-system',
          name: KCM,
          holderIdentity: holder,
          acquireTime: at(acquired),
          renewTime: at(Math.max(acquired, Math.floor(s / 2) * 2)),
          leaseDurationSeconds: 15,
        },
      ];
    },
  };
}

function memoryStore(initial: Journal): LookStore & { saved: Journal[] } {
  let current = initial;
  const saved: Journal[] = [];
  return {
    saved,
    load: async () => current,
    save: async (j) => {
      saved.push(j);
      current = j;
      return j;
    },
  };
}

describe('stopKeepingLooks', () => {
  it('keeps in the journal the holders and renewals seen after the last gate', async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const store = memoryStore(journalFor(plan([step('switch-to-external', [], [])])));
    const poller = startLeasePoller({ reader: rolling(clock, start), clock, watched: new Set([KCM]) });
    await clock.advanceBy(40_000);
    await stopKeepingLooks(poller, store, clock);
    const timeline = store.saved.at(-1)?.leaseTimeline ?? [];
    expect(timeline.map((r) => r.holder)).toEqual(['cp1_b', 'cp2_e', 'cp1_d']);
    // The old holder's last renewal seen (2 s), not only its first look.
    expect(timeline[0]?.lastRenewTime).toBe(new Date(start + 2_000).toISOString());
  });

  it('writes nothing when a gate drained every look', async () => {
    const clock = new VirtualClock();
    const store = memoryStore(journalFor(plan([step('switch-to-external', [], [])])));
    const poller = startLeasePoller({ reader: rolling(clock, clock.now()), clock, watched: new Set([KCM]) });
    await clock.advanceBy(3_000);
    poller.drain();
    await stopKeepingLooks(poller, store, clock);
    expect(store.saved).toEqual([]);
  });

  it('leaves the run\u2019s outcome alone when the journal cannot be written', async () => {
    const clock = new VirtualClock();
    const failing: LookStore = {
      load: async () => journalFor(plan([step('switch-to-external', [], [])])),
      save: async () => Promise.reject(new Error('lock lost')),
    };
    const poller = startLeasePoller({ reader: rolling(clock, clock.now()), clock, watched: new Set([KCM]) });
    await clock.advanceBy(1_000);
    await expect(stopKeepingLooks(poller, failing, clock)).resolves.toBeUndefined();
  });
});
