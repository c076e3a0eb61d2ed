import type { Clock, Random } from '../../clock/index.js';
import { ElectionConfigError } from '../errors.js';
import type { LeaseLock } from '../lease-lock/lease-lock.js';

/** client-go's JitterFactor: acquire retries wait RetryPeriod × (1 + U[0, 1.2)). */
export const JITTER_FACTOR = 1.2;

/** The three durations of an election, in milliseconds of the elector's clock. */
export interface ElectionTimings {
  /** How long a non-leader waits after last seeing the record change before it may take over. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps retrying a renewal before it gives up leading. */
  readonly renewDeadlineMs: number;
  /** The wait between attempts. */
  readonly retryPeriodMs: number;
}

/** The controller managers' defaults (component-base): 15 s, 10 s, 2 s. */
export const DEFAULT_TIMINGS: ElectionTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export interface LeaderCallbacks {
  /** Called (not awaited) when this elector starts leading; `signal` aborts when it stops. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called when run() ends, whether or not this elector ever led. */
  readonly onStoppedLeading: () => void;
  /** Called asynchronously whenever the observed holder changes, including the first observation. */
  readonly onNewLeader?: (identity: string) => void;
}

export type ElectionLogLevel = 'error' | 'info' | 'debug';
export type ElectionLogger = (
  level: ElectionLogLevel,
  message: string,
  fields: Record<string, unknown>,
) => void;

export interface LeaderElectionConfig extends ElectionTimings {
  readonly lock: LeaseLock | undefined;
  readonly callbacks: Partial<LeaderCallbacks>;
  /** Release the lease (holder "", 1 s) when leading ends. The controller managers leave this off. */
  readonly releaseOnCancel?: boolean;
  /** A name for logs. */
  readonly name?: string;
  /** All waiting and all time stamps go through this clock (real, scaled, virtual or skewed). */
  readonly clock: Clock;
  /** Jitter source. Default Math.random. */
  readonly random?: () => number;
  readonly logger?: ElectionLogger;
}

/**
 * NewLeaderElector's checks, in client-go's order and with its exact messages. Durations compare in
 * nanoseconds, with the 1.2 × RetryPeriod product truncated as time.Duration(float64) truncates it.
 */
export function validateElectionConfig(
  config: Pick<LeaderElectionConfig, keyof ElectionTimings | 'lock' | 'callbacks'>,
): void {
  const timingError = electionTimingsError(config);
  if (timingError) throw new ElectionConfigError(timingError);
  if (!config.callbacks.onStartedLeading)
    throw new ElectionConfigError('OnStartedLeading callback must not be nil');
  if (!config.callbacks.onStoppedLeading)
    throw new ElectionConfigError('OnStoppedLeading callback must not be nil');
  if (!config.lock) throw new ElectionConfigError('Lock must not be nil.');
  if (config.lock.identity === '') throw new ElectionConfigError('Lock identity is empty');
}

/** The first of NewLeaderElector's duration checks that fails (client-go's message), or undefined. */
export function electionTimingsError(timings: ElectionTimings): string | undefined {
  const ns = (ms: number): number => Math.round(ms * 1e6);
  const ld = ns(timings.leaseDurationMs);
  const rd = ns(timings.renewDeadlineMs);
  const rp = ns(timings.retryPeriodMs);
  if (ld <= rd) return 'leaseDuration must be greater than renewDeadline';
  if (rd <= Math.trunc(JITTER_FACTOR * rp))
    return 'renewDeadline must be greater than retryPeriod*JitterFactor';
  if (ld < 1) return 'leaseDuration must be greater than zero';
  if (rd < 1) return 'renewDeadline must be greater than zero';
  if (rp < 1) return 'retryPeriod must be greater than zero';
  return undefined;
}

export type { Clock, Random };
