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
  const life = new ManagerLife(options);
  const handle: ControllerManager = {
    component: options.component,
    identity: options.identity,
    plan: life.plan,
    done: life.done,
    stop: () => {
      life.terminate();
      return life.done;
    },
    running: () => [...life.running],
    leading: () => ({ ...life.leadingNow }),
  };
  if (!(options.leaderElect ?? true)) {
    queueMicrotask(() => life.start(life.plan.main, 'none', life.kill.signal));
    return handle;
  }
  const ready = runMainElection(life);
  if (life.plan.migrating) runMigrationElection(life, ready);
  return handle;
}

/** One process's life: its controllers started under a lease's signal, and its single exit. */
class ManagerLife {
  readonly plan: ControllerPlan;
  readonly kill = new AbortController();
  readonly running = new Set<string>();
  readonly leadingNow = { main: false, migration: false };
  readonly done: Promise<ManagerExit>;
  private readonly timings: ElectionTimings;
  private exit: ManagerExit | undefined;
  private settle!: (exit: ManagerExit) => void;

  constructor(readonly options: ControllerManagerOptions) {
    this.plan = planControllers(options);
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    // Every running controller listens on the manager's and its lease's signals; dozens is normal here.
    setMaxListeners(0, this.kill.signal);
    this.done = new Promise<ManagerExit>((resolve) => (this.settle = resolve));
    const terminate = (): void => this.terminate();
    if (options.signal?.aborted) queueMicrotask(terminate);
    options.signal?.addEventListener('abort', terminate, { once: true });
  }

  emit(event: ManagerEvent): void {
    this.options.onEvent?.(event);
  }

  /** Ends the process once: controllers' signals abort, the exit is reported and `done` settles. */
  finish(code: number, reason: string): void {
    if (this.exit) return;
    this.exit = { code, reason };
    this.kill.abort(new Error(reason));
    this.emit({ type: 'exit', code, reason, time: this.options.clock.now() });
    this.options.onExit?.(code, reason);
    this.settle(this.exit);
  }

  terminate(): void {
    this.finish(0, 'terminated');
  }

  /** Runs each controller until `signal` aborts; a controller's own failure is reported, not fatal. */
  start(descriptors: readonly ControllerDescriptor[], lease: LeaseRole, signal: AbortSignal): void {
    const { clock } = this.options;
    for (const d of descriptors) {
      if (signal.aborted) return;
      this.running.add(d.name);
      this.emit({ type: 'controller-started', controller: d.name, lease, time: clock.now() });
      void Promise.resolve()
        .then(() => d.run(signal))
        .then(
          () => undefined,
          (error: unknown) =>
            signal.aborted ? undefined : error instanceof Error ? error.message : String(error),
        )
        .then((error) => {
          this.running.delete(d.name);
          this.emit({
            type: 'controller-stopped',
            controller: d.name,
            time: clock.now(),
            ...(error ? { error } : {}),
          });
        });
    }
  }

  /** A lease's leading signal that also aborts when the process dies. */
  whileLeading(leading: AbortSignal): AbortSignal {
    setMaxListeners(0, leading);
    const combined = AbortSignal.any([leading, this.kill.signal]);
    setMaxListeners(0, combined);
    return combined;
  }

  lockFor(name: string): LeaseLock {
    const { identity } = this.options;
    const lock = this.options.leaseLockFactory(name);
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
  }

  electorFor(
    lock: LeaseLock,
    onStarted: (signal: AbortSignal) => void,
    onStopped: () => void,
  ): LeaderElector {
    const { options } = this;
    return new LeaderElector({
      lock,
      clock: options.clock,
      ...this.timings,
      ...(options.random ? { random: options.random } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      name: `${options.component} ${lock.describe()}`,
      callbacks: { onStartedLeading: onStarted, onStoppedLeading: onStopped },
    });
  }

  /** Marks the lease led until its signal aborts, and says so. */
  leads(lease: 'main' | 'migration', signal: AbortSignal): void {
    this.leadingNow[lease] = true;
    signal.addEventListener('abort', () => (this.leadingNow[lease] = false), { once: true });
    this.emit({ type: 'started-leading', lease, time: this.options.clock.now() });
  }
}

/**
 * The main election: leading it runs the non-migrated controllers and signals MigrationReady (KCM: by starting
 * the SA-token controller first); losing it ends the process. Resolves when migration is ready.
 */
function runMainElection(life: ManagerLife): Promise<void> {
  const { options, plan } = life;
  let migrationReady!: () => void;
  const ready = new Promise<void>((resolve) => (migrationReady = resolve));
  const main = life.electorFor(
    life.lockFor(options.mainLeaseName ?? DEFAULT_MAIN_LEASE[options.component]),
    (signal) => {
      life.leads('main', signal);
      const leased = life.whileLeading(signal);
      if (options.component === 'kube-controller-manager') {
        // KCM: starting the SA-token controller is what signals MigrationReady.
        const isSaToken = (d: ControllerDescriptor): boolean => d.name === plan.serviceAccountTokenController;
        life.start(plan.main.filter(isSaToken), 'main', leased);
        migrationReady();
        life.start(
          plan.main.filter((d) => !isSaToken(d)),
          'main',
          leased,
        );
      } else {
        migrationReady();
        life.start(plan.main, 'main', leased);
      }
    },
    () => life.finish(1, 'leaderelection lost'),
  );
  void main.run(life.kill.signal);
  return ready;
}

/** Once migration is ready: the migration election on the configuration's lease, running the migrated controllers. */
function runMigrationElection(life: ManagerLife, ready: Promise<void>): void {
  const { kill, plan } = life;
  const config = plan.migrationConfig!;
  void Promise.race([
    ready,
    new Promise<void>((resolve) => kill.signal.addEventListener('abort', () => resolve())),
  ]).then(() => {
    if (kill.signal.aborted) return;
    if (config.resourceLock !== 'leases') {
      // client-go 0.24+ has no endpoints lock; upstream fails here, after winning the main lease.
      life.finish(1, `error creating lock: ${config.resourceLock} lock is removed, migrate to leases`);
      return;
    }
    let migration: LeaderElector;
    try {
      migration = life.electorFor(
        life.lockFor(config.leaderName),
        (signal) => {
          life.leads('migration', signal);
          life.start(plan.migrated, 'migration', life.whileLeading(signal));
        },
        () => life.finish(1, 'migration leaderelection lost'),
      );
    } catch (error) {
      life.finish(1, `error creating lock: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    void migration.run(kill.signal);
  });
}
