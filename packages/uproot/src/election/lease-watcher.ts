import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../clock/index.js';
import { MIGRATION_LEASE_NAME, type LeaseObservation } from './model/index.js';
import { makeKeepAliveApiClient } from './kube-http/index.js';
import { isNotFound } from './errors.js';
import { kubeLeaseApi } from './lease-lock/kube-lease-lock.js';
import type { LeaseApi } from './lease-lock/lease-lock.js';
import { leaseSpecToRecord } from './lease-lock/lease-record.js';

export const WATCHED_LEASES = [
  'kube-controller-manager',
  'cloud-controller-manager',
  MIGRATION_LEASE_NAME,
] as const;

export interface LeaseWatcherOptions {
  /** Where to read leases: `store.api()` for the memory store, `kubeLeaseApi(...)` or kubeLeaseWatcherApi(kc) for a cluster. */
  readonly api: LeaseApi;
  readonly clock: Clock;
  readonly namespace?: string;
  /** Default: the two main leases and the migration lease. */
  readonly names?: readonly string[];
  /** Poll period. Default 1 s: half the managers' retry period, so every renewal is seen. */
  readonly intervalMs?: number;
  readonly signal: AbortSignal;
  readonly onObservation?: (observation: LeaseObservation) => void;
  /** Called for a failed read (other than NotFound); the watcher keeps polling. */
  readonly onError?: (name: string, error: unknown) => void;
}

export interface LeaseWatcher {
  /** Every change seen: a lease's first sighting, each new resourceVersion, appearance and disappearance. */
  readonly observations: readonly LeaseObservation[];
  /** Resolves when the signal aborts and the last poll has ended. */
  readonly done: Promise<void>;
  stats(): { polls: number; errors: number };
}

/**
 * Records holder changes of leases through the API alone, by polling on the injected clock. Polling (rather
 * than a watch) works the same on a cluster, on the sandbox and on the memory store in virtual time, and its
 * one-period lag is what the timeline inference allows for. See docs/election.md.
 */
export function watchLeases(options: LeaseWatcherOptions): LeaseWatcher {
  const namespace = options.namespace ?? 'kube-system';
  const names = options.names ?? WATCHED_LEASES;
  const interval = options.intervalMs ?? 1_000;
  const observations: LeaseObservation[] = [];
  const last = new Map<string, string>();
  let polls = 0;
  let errors = 0;

  const pollOne = async (name: string): Promise<void> => {
    let observation: LeaseObservation;
    try {
      const lease = await options.api.read(namespace, name, options.signal);
      const record = leaseSpecToRecord(lease.spec);
      observation = {
        time: options.clock.now(),
        name,
        namespace,
        present: true,
        holderIdentity: record.holderIdentity,
        leaseDurationSeconds: record.leaseDurationSeconds,
        leaseTransitions: record.leaderTransitions,
        ...(record.renewTime !== undefined ? { renewTime: record.renewTime } : {}),
        ...(record.acquireTime !== undefined ? { acquireTime: record.acquireTime } : {}),
        ...(lease.metadata.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
      };
    } catch (error) {
      if (options.signal.aborted) return;
      if (!isNotFound(error)) {
        errors++;
        options.onError?.(name, error);
        return;
      }
      observation = {
        time: options.clock.now(),
        name,
        namespace,
        present: false,
        holderIdentity: '',
        leaseDurationSeconds: 0,
      };
    }
    const key = observation.present
      ? (observation.resourceVersion ?? `${observation.holderIdentity}|${observation.renewTime}`)
      : 'absent';
    if (last.get(name) === key) return;
    last.set(name, key);
    observations.push(observation);
    options.onObservation?.(observation);
  };

  const loop = async (): Promise<void> => {
    while (!options.signal.aborted) {
      polls++;
      await Promise.all(names.map(pollOne));
      try {
        await options.clock.sleep(interval, options.signal);
      } catch {
        return;
      }
    }
  };
  return { observations, done: loop(), stats: () => ({ polls, errors }) };
}

/** A LeaseApi for watching a cluster's leases from a kubeconfig (requests time out after `timeoutMs`). */
export function kubeLeaseWatcherApi(kubeConfig: KubeConfig, clock: Clock, timeoutMs = 5_000): LeaseApi {
  return kubeLeaseApi(makeKeepAliveApiClient(kubeConfig, CoordinationV1Api), clock, timeoutMs);
}
