import { setMaxListeners } from 'node:events';
import type { Clock, Random } from '../../clock/index.js';
import { InputError } from '../../errors/index.js';
import type { KubernetesVersion, LeaderMigrationConfiguration, ManagerComponent } from '../model/index.js';
import { DEFAULT_TIMINGS, type ElectionLogger, type ElectionTimings } from '../elector/election-config.js';
import { LeaderElector } from '../elector/leader-elector.js';
import type { LeaseLock } from '../lease-lock/lease-lock.js';
import { planControllers, type ControllerDescriptor, type ControllerPlan } from './controller-plan.js';

export interface ControllerManagerOptions {
  readonly component: ManagerComponent;
  /** Lease identity of this process (upstream: hostname + "_" + UUID; a restart is a new identity). */
  readonly identity: string;
  /** Makes the lock for a lease name, in the manager's lease namespace, with this identity. */
  readonly leaseLockFactory: (name: string) => LeaseLock;
  /** Default `kube-controller-manager` / `cloud-controller-manager`. */
  readonly mainLeaseName?: string;
  /** `--leader-elect`, default true. Off: every enabled controller runs at once, without leases. */
  readonly leaderElect?: boolean;
  /** `--enable-leader-migration` and the parsed `--leader-migration-config` (default: the version's default). */
  readonly migration?: { readonly enabled: boolean; readonly config?: LeaderMigrationConfiguration };
  readonly kubernetesVersion: KubernetesVersion | string;
  readonly controllers: readonly ControllerDescriptor[];
  /** `--controllers` (`*`, `foo`, `-foo`; aliases resolved as upstream). Default `["*"]`. */
  readonly enabledControllers?: readonly string[];
  /** `--cloud-provider`: KCM runs its cloud controllers only for an in-tree provider such as `aws`. */
  readonly cloudProvider?: string;
  readonly timings?: Partial<ElectionTimings>;
  readonly clock: Clock;
  readonly random?: Random;
  /** Aborting it kills the process: controllers stop, leases are left to expire (upstream never releases). */
  readonly signal?: AbortSignal;
  /** Called once, when the process ends: (1, "leaderelection lost" | "migration leaderelection lost" | ...), (0, "terminated"). */
  readonly onExit?: (code: number, reason: string) => void;
  readonly onEvent?: (event: ManagerEvent) => void;
  readonly logger?: ElectionLogger;
}

export type LeaseRole = 'main' | 'migration' | 'none';

export type ManagerEvent =
  | { readonly type: 'started-leading'; readonly lease: 'main' | 'migration'; readonly time: number }
  | {
      readonly type: 'controller-started';
      readonly controller: string;
      readonly lease: LeaseRole;
      readonly time: number;
    }
  | {
      readonly type: 'controller-stopped';
      readonly controller: string;
      readonly time: number;
      readonly error?: string;
    }
  | { readonly type: 'exit'; readonly code: number; readonly reason: string; readonly time: number };

export interface ManagerExit {
  readonly code: number;
  readonly reason: string;
}

export interface ControllerManager {
  readonly component: ManagerComponent;
  readonly identity: string;
  readonly plan: ControllerPlan;
  /** Resolves when the process has ended. */
  readonly done: Promise<ManagerExit>;
  /** Kills the process (exit 0, "terminated"). */
  stop(reason?: string): Promise<ManagerExit>;
  /** Names of the controllers running now. */
  running(): string[];
  /** Whether this process currently leads the main / migration lease. */
  leading(): { main: boolean; migration: boolean };
}

const DEFAULT_MAIN_LEASE: Record<ManagerComponent, string> = {
  'kube-controller-manager': 'kube-controller-manager',
  'cloud-controller-manager': 'cloud-controller-manager',
};

/**
 * A controller manager's leader-election and leader-migration behaviour (KCM and CCM Run, KEP-2436): the main
 * election first; once it leads (MigrationReady), the migration election on the configuration's lease with the
 * same identity and timings. Non-migrated controllers run under the main lease, migrated ones under the
 * migration lease, unowned ones nowhere. Losing either lease ends the whole process with exit code 1.
 *
 * Throws (the process does not start) on an invalid migration configuration or election timings.
 */
export function runControllerManager(options: ControllerManagerOptions): ControllerManager {
  const plan = planControllers(options);
  const { clock, component, identity } = options;
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const kill = new AbortController();
  // Every running controller listens on the manager's and its lease's signals; dozens is normal here.
  setMaxListeners(0, kill.signal);
  const running = new Set<string>();
  const leadingNow = { main: false, migration: false };
  let exit: ManagerExit | undefined;
  let settle!: (exit: ManagerExit) => void;
  const done = new Promise<ManagerExit>((resolve) => (settle = resolve));
  const emit = (event: ManagerEvent): void => options.onEvent?.(event);

  const finish = (code: number, reason: string): void => {
    if (exit) return;
    exit = { code, reason };
    kill.abort(new Error(reason));
    emit({ type: 'exit', code, reason, time: clock.now() });
    options.onExit?.(code, reason);
    settle(exit);
  };
  const terminate = (): void => finish(0, 'terminated');
  if (options.signal?.aborted) queueMicrotask(terminate);
  options.signal?.addEventListener('abort', terminate, { once: true });

  const start = (
    descriptors: readonly ControllerDescriptor[],
    lease: LeaseRole,
    signal: AbortSignal,
  ): void => {
    for (const d of descriptors) {
      if (signal.aborted) return;
      running.add(d.name);
      emit({ type: 'controller-started', controller: d.name, lease, time: clock.now() });
      void Promise.resolve()
        .then(() => d.run(signal))
        .then(
          () => undefined,
          (error: unknown) =>
            signal.aborted ? undefined : error instanceof Error ? error.message : String(error),
        )
        .then((error) => {
          running.delete(d.name);
          emit({
            type: 'controller-stopped',
            controller: d.name,
            time: clock.now(),
            ...(error ? { error } : {}),
          });
        });
    }
  };
  const anySignal = (leading: AbortSignal): AbortSignal => {
    setMaxListeners(0, leading);
    const combined = AbortSignal.any([leading, kill.signal]);
    setMaxListeners(0, combined);
    return combined;
  };

  const handle: ControllerManager = {
    component,
    identity,
    plan,
    done,
    stop: () => {
      terminate();
      return done;
    },
    running: () => [...running],
    leading: () => ({ ...leadingNow }),
  };

  if (!(options.leaderElect ?? true)) {
    queueMicrotask(() => start(plan.main, 'none', kill.signal));
    return handle;
  }

  const lockFor = (name: string): LeaseLock => {
    const lock = options.leaseLockFactory(name);
    if (lock.identity !== identity) {
      throw new InputError(
        'UP-MANAGER-IDENTITY',
        `the lock for ${name} has identity "${lock.identity}", not "${identity}"`,
        {
          hint: 'make leaseLockFactory build locks with the manager identity',
        },
      );
    }
    return lock;
  };
  const electorFor = (
    lock: LeaseLock,
    onStarted: (signal: AbortSignal) => void,
    onStopped: () => void,
  ): LeaderElector =>
    new LeaderElector({
      lock,
      clock,
      ...timings,
      ...(options.random ? { random: options.random } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      name: `${component} ${lock.describe()}`,
      callbacks: { onStartedLeading: onStarted, onStoppedLeading: onStopped },
    });

  let migrationReady!: () => void;
  const ready = new Promise<void>((resolve) => (migrationReady = resolve));

  const main = electorFor(
    lockFor(options.mainLeaseName ?? DEFAULT_MAIN_LEASE[component]),
    (signal) => {
      leadingNow.main = true;
      signal.addEventListener('abort', () => (leadingNow.main = false), { once: true });
      emit({ type: 'started-leading', lease: 'main', time: clock.now() });
      const leased = anySignal(signal);
      if (component === 'kube-controller-manager') {
        // KCM: starting the SA-token controller is what signals MigrationReady.
        const isSaToken = (d: ControllerDescriptor): boolean => d.name === plan.serviceAccountTokenController;
        start(plan.main.filter(isSaToken), 'main', leased);
        migrationReady();
        start(
          plan.main.filter((d) => !isSaToken(d)),
          'main',
          leased,
        );
      } else {
        migrationReady();
        start(plan.main, 'main', leased);
      }
    },
    () => finish(1, 'leaderelection lost'),
  );
  void main.run(kill.signal);

  if (plan.migrating) {
    const config = plan.migrationConfig!;
    void Promise.race([
      ready,
      new Promise<void>((resolve) => kill.signal.addEventListener('abort', () => resolve())),
    ]).then(() => {
      if (kill.signal.aborted) return;
      if (config.resourceLock !== 'leases') {
        // client-go 0.24+ has no endpoints lock; upstream fails here, after winning the main lease.
        finish(1, `error creating lock: ${config.resourceLock} lock is removed, migrate to leases`);
        return;
      }
      let migration: LeaderElector;
      try {
        migration = electorFor(
          lockFor(config.leaderName),
          (signal) => {
            leadingNow.migration = true;
            signal.addEventListener('abort', () => (leadingNow.migration = false), { once: true });
            emit({ type: 'started-leading', lease: 'migration', time: clock.now() });
            start(plan.migrated, 'migration', anySignal(signal));
          },
          () => finish(1, 'migration leaderelection lost'),
        );
      } catch (error) {
        finish(1, `error creating lock: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      void migration.run(kill.signal);
    });
  }
  return handle;
}
