import type { Clock } from '../../clock/index.js';
import { LeaseLockError, type LeaseErrorReason } from '../errors.js';
import { ApiLeaseLock, type LeaderElectionEventSink, type LeaseApi } from './lease-lock.js';
import type { LeaseObject } from './lease-record.js';

export type LeaseVerb = 'get' | 'create' | 'update';

/** One call arriving at the store. `identity` is the caller's lock identity (the "user" of the request). */
export interface LeaseRequest {
  readonly verb: LeaseVerb;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string | undefined;
}

/**
 * What to do to one request: wait before it reaches the store (`delayMs`), fail it instead of applying it
 * (`error`), and wait before the caller sees the answer (`responseDelayMs`: the write has happened, the reply
 * is late). Delays are in the store's clock and end early, with an abort, when the caller gives up.
 */
export interface LeaseFault {
  readonly delayMs?: number;
  readonly error?: Extract<
    LeaseErrorReason,
    'Conflict' | 'Forbidden' | 'Unavailable' | 'Timeout' | 'Unknown'
  >;
  readonly responseDelayMs?: number;
}

export type LeaseFaultInjector = (request: LeaseRequest) => LeaseFault | undefined;

/** What happened to one request, for observers (tests assert on the operation sequence). */
export interface LeaseOperation extends LeaseRequest {
  readonly time: number;
  readonly outcome: 'ok' | LeaseErrorReason;
  /** The lease after a successful write, or as read. */
  readonly lease?: LeaseObject;
}

/**
 * An in-memory coordination.k8s.io lease API: resourceVersions, 404 on missing, 409 on create-if-exists and on
 * a stale update, plus hooks to inject errors and delays. It exists so elections can run thousands of times
 * in virtual time (property tests, rehearsals, benchmarks); the Kubernetes lock is tested over HTTP against
 * the sandbox API server (see docs/decisions/0002-election-lease-port.md).
 */
export class MemoryLeaseStore {
  private readonly clock: Clock;
  private readonly leases = new Map<string, LeaseObject>();
  private readonly observers = new Set<(op: LeaseOperation) => void>();
  private revision = 0;
  private injector: LeaseFaultInjector | undefined;

  constructor(options: { clock: Clock }) {
    this.clock = options.clock;
  }

  /** Installs (or, with undefined, removes) the fault injector consulted for every request. */
  setFaults(injector: LeaseFaultInjector | undefined): void {
    this.injector = injector;
  }

  /** Calls `observer` after every request; returns the unsubscribe function. */
  observe(observer: (op: LeaseOperation) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** The stored lease, without going through faults; undefined when absent. A copy. */
  peek(namespace: string, name: string): LeaseObject | undefined {
    const lease = this.leases.get(key(namespace, name));
    return lease ? cloneLease(lease) : undefined;
  }

  /** Every stored lease, copied, in name order. */
  list(namespace?: string): LeaseObject[] {
    return [...this.leases.values()]
      .filter((l) => namespace === undefined || l.metadata.namespace === namespace)
      .sort((a, b) =>
        key(a.metadata.namespace, a.metadata.name).localeCompare(key(b.metadata.namespace, b.metadata.name)),
      )
      .map(cloneLease);
  }

  /** A LeaseApi whose requests carry `identity` (so faults and observers can tell callers apart). */
  api(identity?: string): LeaseApi {
    return {
      read: (namespace, name, signal) =>
        this.request({ verb: 'get', namespace, name, identity }, signal, () => this.doGet(namespace, name)),
      create: (lease, signal) =>
        this.request(
          { verb: 'create', namespace: lease.metadata.namespace, name: lease.metadata.name, identity },
          signal,
          () => this.doCreate(lease),
        ),
      replace: (lease, signal) =>
        this.request(
          { verb: 'update', namespace: lease.metadata.namespace, name: lease.metadata.name, identity },
          signal,
          () => this.doReplace(lease),
        ),
    };
  }

  /** A lease lock for `identity` on `namespace/name`, backed by this store. */
  lock(options: {
    namespace: string;
    name: string;
    identity: string;
    eventSink?: LeaderElectionEventSink;
  }): ApiLeaseLock {
    return new ApiLeaseLock({ ...options, api: this.api(options.identity) });
  }

  private async request(
    request: LeaseRequest,
    signal: AbortSignal | undefined,
    apply: () => LeaseObject,
  ): Promise<LeaseObject> {
    const fault = this.injector?.(request);
    let applied = false;
    try {
      if (fault?.delayMs) await this.clock.sleep(fault.delayMs, signal);
      if (signal?.aborted) throw abortError(signal);
      if (fault?.error) throw injected(fault.error, request);
      const lease = apply();
      applied = true;
      this.emit(request, 'ok', lease);
      // The write has happened; only the reply is late (and may never arrive if the caller gives up).
      if (fault?.responseDelayMs) await this.clock.sleep(fault.responseDelayMs, signal);
      return cloneLease(lease);
    } catch (error) {
      const failure = toLeaseError(error);
      if (!applied) this.emit(request, failure.reason);
      throw failure;
    }
  }

  private doGet(namespace: string, name: string): LeaseObject {
    const lease = this.leases.get(key(namespace, name));
    if (!lease) throw notFound(namespace, name);
    return lease;
  }

  private doCreate(lease: LeaseObject): LeaseObject {
    const { namespace, name } = lease.metadata;
    if (this.leases.has(key(namespace, name))) {
      throw new LeaseLockError('AlreadyExists', `leases.coordination.k8s.io "${name}" already exists`, {
        status: 409,
      });
    }
    const stored: LeaseObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name,
        namespace,
        resourceVersion: String(++this.revision),
        uid: `lease-${this.revision}`,
        creationTimestamp: `${new Date(Math.floor(this.clock.now() / 1000) * 1000).toISOString().slice(0, 19)}Z`,
      },
      spec: { ...lease.spec },
    };
    this.leases.set(key(namespace, name), stored);
    return stored;
  }

  private doReplace(lease: LeaseObject): LeaseObject {
    const { namespace, name, resourceVersion } = lease.metadata;
    const current = this.leases.get(key(namespace, name));
    if (!current) throw notFound(namespace, name);
    if (resourceVersion !== undefined && resourceVersion !== current.metadata.resourceVersion) {
      throw new LeaseLockError(
        'Conflict',
        `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { status: 409 },
      );
    }
    const stored: LeaseObject = {
      ...current,
      metadata: { ...current.metadata, resourceVersion: String(++this.revision) },
      spec: { ...lease.spec },
    };
    this.leases.set(key(namespace, name), stored);
    return stored;
  }

  private emit(request: LeaseRequest, outcome: LeaseOperation['outcome'], lease?: LeaseObject): void {
    if (this.observers.size === 0) return;
    const op: LeaseOperation = {
      ...request,
      time: this.clock.now(),
      outcome,
      ...(lease ? { lease: cloneLease(lease) } : {}),
    };
    for (const observer of this.observers) observer(op);
  }
}

/** Leases are flat (metadata and spec hold only primitives): a two-level copy is a deep copy, and much cheaper. */
function cloneLease(lease: LeaseObject): LeaseObject {
  return { ...lease, metadata: { ...lease.metadata }, ...(lease.spec ? { spec: { ...lease.spec } } : {}) };
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function notFound(namespace: string, name: string): LeaseLockError {
  return new LeaseLockError(
    'NotFound',
    `leases.coordination.k8s.io "${name}" not found in namespace "${namespace}"`,
    {
      status: 404,
    },
  );
}

function injected(reason: NonNullable<LeaseFault['error']>, request: LeaseRequest): LeaseLockError {
  const status = { Conflict: 409, Forbidden: 403, Unavailable: 503, Timeout: 504, Unknown: 500 }[reason];
  return new LeaseLockError(
    reason,
    `injected ${reason} on ${request.verb} ${request.namespace}/${request.name}`,
    { status },
  );
}

function abortError(signal: AbortSignal): LeaseLockError {
  return new LeaseLockError('Timeout', 'request cancelled before it reached the server', {
    cause: signal.reason,
  });
}

function toLeaseError(error: unknown): LeaseLockError {
  if (error instanceof LeaseLockError) return error;
  return new LeaseLockError('Timeout', 'request cancelled', { cause: error });
}
