/**
 * The migration lock: a Lease `uproot-migration-lock` beside the journal, held by a run id and renewed while
 * the run works. Two runs cannot both proceed: the second gets a LockError (exit 2) naming the holder and how
 * long ago it renewed. A crashed run stops renewing; once the lease has expired (60 s by default) the next run
 * takes it over. The Lease also names the holder's process: a run on the same machine whose holder process is
 * gone (killed) takes over at once instead of waiting for the expiry.
 */
import type { Clock } from '../../clock/index.js';
import { decideLock, microTime, type LockLease } from '../../engine/lock/lock-decision.js';
import {
  decodeHolderProcess,
  encodeHolderProcess,
  HOLDER_PROCESS_ANNOTATION,
  type LocalProcesses,
  type LockTakeover,
} from '../../engine/lock/holder-process.js';
import { LockError } from '../../errors/index.js';
import { isKubeStatus } from './kube-client.js';
import type { KubeObject, MigrationLease, ObjectStore } from '../../engine/ports.js';

export const LOCK_NAME = 'uproot-migration-lock';
export const LOCK_TTL_SECONDS = 60;

export interface MigrationLockOptions {
  readonly namespace: string;
  readonly name?: string;
  /** This run's id (holderIdentity). */
  readonly holder: string;
  readonly clock: Clock;
  readonly ttlSeconds?: number;
  /** What the run does, shown to a second run that finds the lock held. */
  readonly purpose?: string;
  /** This machine's processes: recorded in the Lease, and asked whether a holder's process is gone. */
  readonly processes?: LocalProcesses;
}

export class MigrationLock implements MigrationLease {
  private readonly ttl: number;
  private readonly name: string;
  private renewal: { controller: AbortController; done: Promise<void> } | undefined;
  private lost: Error | undefined;

  constructor(
    private readonly objects: ObjectStore,
    private readonly options: MigrationLockOptions,
  ) {
    this.ttl = options.ttlSeconds ?? LOCK_TTL_SECONDS;
    this.name = options.name ?? LOCK_NAME;
  }

  private get ref() {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: this.options.namespace,
      name: this.name,
    };
  }

  get where(): string {
    return `lease ${this.options.namespace}/${this.name}`;
  }

  /** Takes the lock or throws a LockError naming the holder. */
  async acquire(): Promise<{ tookOverFrom?: string; takeover?: LockTakeover }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const lease = await this.objects.get(this.ref);
      const now = this.options.clock.now();
      const holderProcess = decodeHolderProcess(annotationsOf(lease)[HOLDER_PROCESS_ANNOTATION]);
      const gone = holderProcess !== undefined && this.options.processes?.stateOf(holderProcess) === 'gone';
      const decision = decideLock(lease?.spec as LockLease | undefined, this.options.holder, now, gone);
      try {
        switch (decision.type) {
          case 'held':
            throw new LockError(
              'UP-LOCK-HELD',
              `another uproot run holds the migration lock ${this.where}: ${decision.holder}${purposeOf(lease)}${holderProcess ? `, process ${holderProcess.pid} on ${holderProcess.hostname}` : ''}, last renewed ${decision.ageSeconds}s ago`,
              {
                hint: `wait for it to finish; if it crashed, the lock expires in ${decision.expiresInSeconds}s and \`uproot migrate --resume\` takes it over`,
              },
            );
          case 'create':
            await this.objects.create(this.leaseObject(undefined, now, 0));
            return {};
          case 'take':
            await this.objects.replace(this.leaseObject(lease, now, decision.transitions));
            return decision.previous
              ? {
                  tookOverFrom: decision.previous,
                  takeover: {
                    from: decision.previous,
                    because: decision.because ?? 'expired',
                    ...(holderProcess ? { process: holderProcess } : {}),
                  },
                }
              : {};
          case 'renew':
            await this.objects.replace(
              this.leaseObject(lease, now, (lease?.spec as LockLease).leaseTransitions ?? 0, true),
            );
            return {};
        }
      } catch (error) {
        if (!isKubeStatus(error, 409)) throw error; // somebody raced us: decide again on a fresh read
      }
    }
    throw new LockError('UP-LOCK-CONTENDED', `could not take ${this.where}: it kept changing`, {
      hint: 'another uproot run is starting at the same time; run only one',
    });
  }

  /** Renews every ttl/3 until released; `onLost` is called once if another run takes the lock. */
  startRenewing(onLost: (error: Error) => void): void {
    if (this.renewal) return;
    const controller = new AbortController();
    const done = this.renewLoop(controller.signal, onLost);
    this.renewal = { controller, done };
  }

  /** Throws the reason when the lock was lost. */
  assertHeld(): void {
    if (this.lost) throw this.lost;
  }

  private async renewLoop(signal: AbortSignal, onLost: (error: Error) => void): Promise<void> {
    const { clock } = this.options;
    let lastRenewed = clock.now();
    while (!signal.aborted) {
      try {
        await clock.sleep((this.ttl * 1000) / 3, signal);
      } catch {
        return;
      }
      try {
        const lease = await this.objects.get(this.ref);
        const spec = lease?.spec as LockLease | undefined;
        if (spec?.holderIdentity !== this.options.holder) {
          this.lost = new LockError(
            'UP-LOCK-LOST',
            `the migration lock ${this.where} was taken by ${spec?.holderIdentity || 'nobody'} while this run worked`,
            { hint: 'another run took over; stop it or wait for it, then check `uproot status`' },
          );
          onLost(this.lost);
          return;
        }
        await this.objects.replace(this.leaseObject(lease, clock.now(), spec.leaseTransitions ?? 0, true));
        lastRenewed = clock.now();
      } catch (error) {
        // Transient: keep trying until the lease would have expired.
        if (clock.now() - lastRenewed > this.ttl * 1000) {
          this.lost = new LockError('UP-LOCK-LOST', `could not renew ${this.where} for ${this.ttl}s`, {
            hint: 'the API server was unreachable; check it, then run `uproot migrate --resume`',
            cause: error,
          });
          onLost(this.lost);
          return;
        }
      }
    }
  }

  /** Stops renewing and frees the lock (holder emptied, like client-go's release), if still ours. */
  async release(): Promise<void> {
    if (this.renewal) {
      this.renewal.controller.abort();
      await this.renewal.done;
      this.renewal = undefined;
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const lease = await this.objects.get(this.ref);
      const spec = lease?.spec as LockLease | undefined;
      if (!lease || spec?.holderIdentity !== this.options.holder) return;
      try {
        const now = this.options.clock.now();
        await this.objects.replace({
          ...lease,
          spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now) },
        });
        return;
      } catch (error) {
        if (!isKubeStatus(error, 409)) throw error;
      }
    }
  }

  private leaseObject(
    existing: KubeObject | undefined,
    now: number,
    transitions: number,
    keepAcquire = false,
  ): KubeObject {
    const spec = existing?.spec as LockLease | undefined;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(existing?.metadata ?? {}),
        name: this.name,
        namespace: this.options.namespace,
        labels: { 'app.kubernetes.io/managed-by': 'uproot' },
        annotations: {
          'uproot.dev/purpose': this.options.purpose ?? 'migrate',
          ...(this.options.processes
            ? { [HOLDER_PROCESS_ANNOTATION]: encodeHolderProcess(this.options.processes.self()) }
            : {}),
        },
      },
      spec: {
        holderIdentity: this.options.holder,
        leaseDurationSeconds: this.ttl,
        acquireTime: keepAcquire && spec?.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: transitions,
      },
    };
  }
}

function annotationsOf(lease: KubeObject | undefined): Record<string, string> {
  return (lease?.metadata?.annotations as Record<string, string> | undefined) ?? {};
}

function purposeOf(lease: KubeObject | undefined): string {
  const purpose = annotationsOf(lease)['uproot.dev/purpose'];
  return purpose ? ` (${purpose})` : '';
}
