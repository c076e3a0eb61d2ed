import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from '../../clock/index.js';
import { controllersOf, type LeaderMigrationConfiguration, type ManagerComponent } from '../model/index.js';
import { parseKubernetesVersion } from '../model/index.js';
import { MemoryLeaseStore } from '../lease-lock/memory-lease-store.js';
import type { ControllerDescriptor } from './controller-plan.js';
import {
  runControllerManager,
  type ControllerManagerOptions,
  type ManagerExit,
} from './run-controller-manager.js';

const KCM = 'kube-controller-manager';
const CCM = 'cloud-controller-manager';
const CLOUD = new Set([
  'route',
  'service',
  'cloud-node-lifecycle',
  'node-route-controller',
  'service-lb-controller',
  'cloud-node-lifecycle-controller',
]);

function world() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryLeaseStore({ clock });
  const log: string[] = [];
  return { clock, store, log };
}

/** Descriptors for every controller of a manager version; each logs `identity:+name` / `identity:-name`. */
function descriptors(
  w: ReturnType<typeof world>,
  component: ManagerComponent,
  version: string,
  identity: string,
): ControllerDescriptor[] {
  return controllersOf(component, parseKubernetesVersion(version)).map((name) => ({
    name,
    isCloudProviderController: component === KCM && CLOUD.has(name),
    disabledByDefault: [
      'bootstrapsigner',
      'tokencleaner',
      'bootstrap-signer-controller',
      'token-cleaner-controller',
    ].includes(name),
    run: (signal) =>
      new Promise<void>((resolve) => {
        w.log.push(`${identity}:+${name}`);
        signal.addEventListener('abort', () => {
          w.log.push(`${identity}:-${name}`);
          resolve();
        });
      }),
  }));
}

function manager(
  w: ReturnType<typeof world>,
  component: ManagerComponent,
  identity: string,
  patch: Partial<ControllerManagerOptions> & { version?: string } = {},
) {
  const version = patch.version ?? '1.26';
  const exits: ManagerExit[] = [];
  const m = runControllerManager({
    component,
    identity,
    kubernetesVersion: version,
    leaseLockFactory: (name) => w.store.lock({ namespace: 'kube-system', name, identity }),
    controllers: descriptors(w, component, version, identity),
    cloudProvider: component === KCM ? 'aws' : 'aws',
    clock: w.clock,
    random: seededRandom(identity.length),
    onExit: (code, reason) => exits.push({ code, reason }),
    ...patch,
  });
  return { m, exits };
}

const holder = (w: ReturnType<typeof world>, lease: string): string | undefined =>
  w.store.peek('kube-system', lease)?.spec?.holderIdentity;

const running = (w: ReturnType<typeof world>, identity: string): string[] => {
  const state = new Map<string, boolean>();
  for (const line of w.log) {
    const [who, change] = line.split(':') as [string, string];
    if (who === identity) state.set(change.slice(1), change.startsWith('+'));
  }
  return [...state]
    .filter(([, on]) => on)
    .map(([name]) => name)
    .sort();
};

describe('runControllerManager', () => {
  it('KCM 1.26 with the default migration config: SA token first, main set under the main lease, migrated set under the migration lease', async () => {
    const w = world();
    const { m } = manager(w, KCM, 'kcm-1', { migration: { enabled: true } });
    await w.clock.advanceBy(1_000);
    expect(holder(w, KCM)).toBe('kcm-1');
    expect(holder(w, 'cloud-provider-extraction-migration')).toBe('kcm-1');
    expect(w.log[0]).toBe('kcm-1:+serviceaccount-token');
    expect(m.plan.migrated.map((d) => d.name)).toEqual(['route', 'service', 'cloud-node-lifecycle']);
    expect(m.plan.main.map((d) => d.name)).toContain('nodeipam');
    expect(m.plan.disabled).toEqual(['bootstrapsigner', 'tokencleaner']);
    expect(running(w, 'kcm-1')).toEqual(
      expect.arrayContaining(['route', 'service', 'cloud-node-lifecycle', 'nodeipam', 'deployment']),
    );
    expect(m.leading()).toEqual({ main: true, migration: true });
    await m.stop();
  });

  it('a standby manager runs nothing; a killed leader leaves its leases to expire, then the standby takes both', async () => {
    const w = world();
    const a = manager(w, KCM, 'kcm-a', { migration: { enabled: true } });
    await w.clock.advanceBy(500);
    const b = manager(w, KCM, 'kcm-b', { migration: { enabled: true } });
    await w.clock.advanceBy(30_000);
    expect(running(w, 'kcm-b')).toEqual([]);
    expect(await a.m.stop()).toEqual({ code: 0, reason: 'terminated' });
    expect(a.exits).toEqual([{ code: 0, reason: 'terminated' }]);
    expect(running(w, 'kcm-a')).toEqual([]);
    expect(holder(w, KCM)).toBe('kcm-a'); // not released, as upstream
    await w.clock.advanceBy(10_000);
    expect(running(w, 'kcm-b')).toEqual([]);
    await w.clock.advanceBy(30_000);
    expect(holder(w, KCM)).toBe('kcm-b');
    expect(holder(w, 'cloud-provider-extraction-migration')).toBe('kcm-b');
    expect(running(w, 'kcm-b')).toContain('service');
    await b.m.stop();
  });

  it('losing the main lease ends the whole process with exit 1 "leaderelection lost"', async () => {
    const w = world();
    const { m, exits } = manager(w, KCM, 'kcm-1', { migration: { enabled: true } });
    await w.clock.advanceBy(5_000);
    w.store.setFaults((req) =>
      req.name === KCM && req.verb !== 'get' ? { error: 'Unavailable' } : undefined,
    );
    await w.clock.advanceBy(30_000);
    expect(exits).toEqual([{ code: 1, reason: 'leaderelection lost' }]);
    expect(await m.done).toEqual({ code: 1, reason: 'leaderelection lost' });
    expect(running(w, 'kcm-1')).toEqual([]); // migrated controllers stopped too
    expect(m.running()).toEqual([]);
  });

  it('losing the migration lease ends the whole process with exit 1 "migration leaderelection lost"', async () => {
    const w = world();
    const { exits } = manager(w, CCM, 'ccm-1', { migration: { enabled: true }, version: '1.27' });
    await w.clock.advanceBy(5_000);
    expect(running(w, 'ccm-1')).toEqual(['cloud-node', 'cloud-node-lifecycle', 'route', 'service']);
    w.store.setFaults((req) =>
      req.name === 'cloud-provider-extraction-migration' ? { error: 'Unavailable' } : undefined,
    );
    await w.clock.advanceBy(30_000);
    expect(exits).toEqual([{ code: 1, reason: 'migration leaderelection lost' }]);
    expect(running(w, 'ccm-1')).toEqual([]);
  });

  it('runs the migration election even with nothing migrated, and holds the lease while running nothing under it', async () => {
    const w = world();
    const kcmOnly: LeaderMigrationConfiguration = {
      leaderName: 'cloud-provider-extraction-migration',
      resourceLock: 'leases',
      controllerLeaders: ['route', 'service', 'cloud-node-lifecycle'].map((name) => ({
        name,
        component: KCM,
      })),
    };
    const { m } = manager(w, CCM, 'ccm-1', {
      migration: { enabled: true, config: kcmOnly },
      version: '1.27',
    });
    await w.clock.advanceBy(3_000);
    expect(m.plan.migrated).toEqual([]);
    expect(m.plan.unowned).toEqual(['cloud-node-lifecycle', 'service', 'route']);
    expect(holder(w, 'cloud-provider-extraction-migration')).toBe('ccm-1');
    expect(running(w, 'ccm-1')).toEqual(['cloud-node']);
    await m.stop();
  });

  it('--leader-elect=false runs every enabled controller without any lease', async () => {
    const w = world();
    const { m } = manager(w, CCM, 'ccm-1', {
      leaderElect: false,
      migration: { enabled: true },
      version: '1.27',
    });
    await w.clock.advanceBy(1_000);
    expect(w.store.list()).toEqual([]);
    expect(m.plan.migrating).toBe(false);
    expect(running(w, 'ccm-1')).toEqual(['cloud-node', 'cloud-node-lifecycle', 'route', 'service']);
    await m.stop();
  });

  it('KCM with --cloud-provider=external skips the cloud-provider controllers (nodeipam stays)', async () => {
    const w = world();
    const { m } = manager(w, KCM, 'kcm-1', { cloudProvider: 'external', version: '1.27' });
    await w.clock.advanceBy(1_000);
    expect(m.plan.skipped).toEqual(['route', 'service', 'cloud-node-lifecycle']);
    expect(running(w, 'kcm-1')).toContain('nodeipam');
    expect(running(w, 'kcm-1')).not.toContain('service');
    await m.stop();
  });

  it('--controllers with 1.28 aliases: -service disables service-lb-controller; tokencleaner can be enabled by its alias', async () => {
    const w = world();
    const { m } = manager(w, KCM, 'kcm-1', {
      version: '1.28',
      enabledControllers: ['*', '-service', 'tokencleaner'],
    });
    expect(m.plan.disabled).toEqual(['bootstrap-signer-controller', 'service-lb-controller']);
    expect(m.plan.main.map((d) => d.name)).toContain('token-cleaner-controller');
    await m.stop();
  });

  it('a configuration with resourceLock endpoints fails after the main lease is won', async () => {
    const w = world();
    const { exits } = manager(w, KCM, 'kcm-1', {
      migration: {
        enabled: true,
        config: { leaderName: 'mig', resourceLock: 'endpoints', controllerLeaders: [] },
      },
    });
    await w.clock.advanceBy(1_000);
    expect(holder(w, KCM)).toBe('kcm-1');
    expect(exits).toEqual([
      { code: 1, reason: 'error creating lock: endpoints lock is removed, migrate to leases' },
    ]);
  });

  it('refuses to start with an invalid migration configuration or invalid timings', () => {
    const w = world();
    expect(() =>
      manager(w, KCM, 'kcm-1', {
        migration: {
          enabled: true,
          config: { leaderName: '', resourceLock: 'leases', controllerLeaders: [] },
        },
      }),
    ).toThrow(
      'failed to parse leader migration configuration: [leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration]',
    );
    expect(() => manager(w, KCM, 'kcm-2', { timings: { renewDeadlineMs: 20_000 } })).toThrow(
      'leaseDuration must be greater than renewDeadline',
    );
    expect(() => manager(w, KCM, 'kcm-3', { migration: { enabled: true }, version: '1.21' })).toThrow(
      '--leader-migration-config is required',
    );
  });

  it('KCM and CCM with migration: the migrated controllers are only ever run by the migration-lease holder', async () => {
    const w = world();
    const kcms = ['kcm-1', 'kcm-2', 'kcm-3'].map((id) =>
      manager(w, KCM, id, { migration: { enabled: true } }),
    );
    await w.clock.advanceBy(20_000);
    const ccms = ['ccm-1', 'ccm-2'].map((id) =>
      manager(w, CCM, id, { migration: { enabled: true }, version: '1.27' }),
    );
    await w.clock.advanceBy(20_000);
    const owner = holder(w, 'cloud-provider-extraction-migration')!;
    const runningService = [...kcms, ...ccms]
      .map((x) => x.m.identity)
      .filter((id) => running(w, id).includes('service'));
    expect(runningService).toEqual([owner]);
    expect(running(w, holder(w, CCM)!)).toContain('cloud-node');
    for (const x of [...kcms, ...ccms]) await x.m.stop();
  });
});
