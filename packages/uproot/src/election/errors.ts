import { InputError, UprootError } from '../errors/index.js';

/**
 * Why a lease call failed, in the API server's terms. The elector only distinguishes NotFound (create the
 * lease) from everything else (try again later), as client-go does; the rest is for callers and messages.
 */
export type LeaseErrorReason =
  | 'NotFound'
  | 'Conflict'
  | 'AlreadyExists'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Invalid'
  | 'NotInitialized'
  | 'Timeout'
  | 'Unavailable'
  | 'Unknown';

/** A failed call on a lease lock. `status` is the HTTP status when there was a response. */
export class LeaseLockError extends UprootError {
  readonly reason: LeaseErrorReason;
  readonly status: number | undefined;

  constructor(reason: LeaseErrorReason, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(`UP-LEASE-${reason.toUpperCase()}`, message, {
      source: reason === 'NotInitialized' ? 'uproot' : 'environment',
      cause: options.cause,
      hint: hintFor(reason),
    });
    this.name = 'LeaseLockError';
    this.reason = reason;
    this.status = options.status;
  }
}

function hintFor(reason: LeaseErrorReason): string | undefined {
  switch (reason) {
    case 'Forbidden':
      return 'grant get, create and update on leases (coordination.k8s.io) in the lease namespace to this identity';
    case 'Unauthorized':
      return 'the credentials were rejected; refresh the kubeconfig';
    default:
      return undefined;
  }
}

export function leaseErrorReason(error: unknown): LeaseErrorReason | undefined {
  return error instanceof LeaseLockError ? error.reason : undefined;
}

export const isNotFound = (error: unknown): boolean => leaseErrorReason(error) === 'NotFound';
export const isConflict = (error: unknown): boolean => leaseErrorReason(error) === 'Conflict';

/**
 * An invalid LeaderElectionConfig. The message is client-go's, word for word (NewLeaderElector), so that
 * behaviour matches upstream and tests can compare strings.
 */
export class ElectionConfigError extends InputError {
  constructor(message: string) {
    super('UP-ELECTION-CONFIG', message, {
      hint: 'leader election needs leaseDuration > renewDeadline > 1.2 × retryPeriod > 0, both callbacks and a lock with an identity',
    });
    this.name = 'ElectionConfigError';
  }
}

/**
 * A controller manager flag value the Go parsers refuse (time.ParseDuration, strconv.ParseBool, component-base
 * feature gates). The message is upstream's, word for word, as the manager prints it before exiting.
 */
export class FlagValueError extends InputError {
  constructor(message: string) {
    super('UP-ELECTION-FLAG-VALUE', message, {
      hint: 'write the value as the controller manager accepts it (e.g. 15s, true, FeatureName=true)',
    });
    this.name = 'FlagValueError';
  }
}
