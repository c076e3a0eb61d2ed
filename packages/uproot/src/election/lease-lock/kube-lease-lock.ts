import {
  ApiException,
  CoordinationV1Api,
  Observable,
  type ConfigurationOptions,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
  type V1Lease,
} from '@kubernetes/client-node';
import type { Clock } from '../../clock/index.js';
import { makeKeepAliveApiClient } from '../kube-http/index.js';
import { LeaseLockError, type LeaseErrorReason } from '../errors.js';
import { ApiLeaseLock, type LeaderElectionEventSink, type LeaseApi } from './lease-lock.js';
import type { LeaseObject, LeaseSpecWire } from './lease-record.js';

export interface KubeLeaseLockOptions {
  /** Either a kubeconfig (a CoordinationV1Api is made from it) or a ready client. */
  readonly kubeConfig?: KubeConfig;
  readonly api?: CoordinationV1Api;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  /** Requests are tracked on this clock (virtual time stands still while one is in flight) and time out on it. */
  readonly clock: Clock;
  /** Per-request timeout. Default: max(1 s, renewDeadlineMs / 2), as client-go's NewFromKubeconfig sets it. */
  readonly requestTimeoutMs?: number;
  /** Used only for the default timeout. Default 10 s. */
  readonly renewDeadlineMs?: number;
  readonly eventSink?: LeaderElectionEventSink;
}

/** A lease lock over the Kubernetes API (client-node's CoordinationV1Api). */
export class KubeLeaseLock extends ApiLeaseLock {
  constructor(options: KubeLeaseLockOptions) {
    const client =
      options.api ?? (options.kubeConfig && makeKeepAliveApiClient(options.kubeConfig, CoordinationV1Api));
    if (!client) throw new TypeError('KubeLeaseLock needs a kubeConfig or an api');
    const timeoutMs = options.requestTimeoutMs ?? Math.max(1000, (options.renewDeadlineMs ?? 10_000) / 2);
    super({
      api: kubeLeaseApi(client, options.clock, timeoutMs),
      namespace: options.namespace,
      name: options.name,
      identity: options.identity,
      eventSink: options.eventSink,
    });
  }
}

/** The LeaseApi over client-node: every call tracked on the clock, cancellable, and bounded by `timeoutMs`. */
export function kubeLeaseApi(api: CoordinationV1Api, clock: Clock, timeoutMs: number): LeaseApi {
  const call = <T>(
    what: string,
    signal: AbortSignal | undefined,
    work: (o: ConfigurationOptions) => Promise<T>,
  ) => callWithTimeout(clock, timeoutMs, what, signal, work);
  return {
    read: async (namespace, name, signal) =>
      fromV1Lease(
        await call(`get lease ${namespace}/${name}`, signal, (o) =>
          api.readNamespacedLease({ name, namespace }, o),
        ),
      ),
    create: async (lease, signal) =>
      fromV1Lease(
        await call(`create lease ${lease.metadata.namespace}/${lease.metadata.name}`, signal, (o) =>
          api.createNamespacedLease({ namespace: lease.metadata.namespace, body: toV1Lease(lease) }, o),
        ),
      ),
    replace: async (lease, signal) =>
      fromV1Lease(
        await call(`update lease ${lease.metadata.namespace}/${lease.metadata.name}`, signal, (o) =>
          api.replaceNamespacedLease(
            { name: lease.metadata.name, namespace: lease.metadata.namespace, body: toV1Lease(lease) },
            o,
          ),
        ),
      ),
  };
}

class RequestTimeout extends Error {}

/** A shared abort reason for the timeout timer (a bare abort() builds a DOMException each time). */
const TIMER_DONE = new Error('request finished');

async function callWithTimeout<T>(
  clock: Clock,
  timeoutMs: number,
  what: string,
  signal: AbortSignal | undefined,
  work: (options: ConfigurationOptions) => Promise<T>,
): Promise<T> {
  const request = new AbortController();
  const forward = (): void => request.abort(signal?.reason);
  if (signal?.aborted) forward();
  signal?.addEventListener('abort', forward, { once: true });
  const timer = new AbortController();
  clock.sleep(timeoutMs, timer.signal).then(
    () => request.abort(new RequestTimeout()),
    () => undefined,
  );
  try {
    if (request.signal.aborted) throw request.signal.reason;
    return await clock.track(work(signalOptions(request.signal)));
  } catch (error) {
    throw toLeaseError(error, what, request.signal, timeoutMs);
  } finally {
    timer.abort(TIMER_DONE);
    signal?.removeEventListener('abort', forward);
  }
}

/** Passes an AbortSignal to the underlying fetch through a request middleware. */
function signalOptions(signal: AbortSignal): ConfigurationOptions {
  return {
    middleware: [
      {
        pre: (context: RequestContext) => {
          context.setSignal(signal);
          return new Observable(Promise.resolve(context));
        },
        post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}

const STATUS_REASONS: Record<number, LeaseErrorReason> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  422: 'Invalid',
  500: 'Unknown',
  503: 'Unavailable',
  504: 'Timeout',
};

function toLeaseError(error: unknown, what: string, signal: AbortSignal, timeoutMs: number): LeaseLockError {
  if (error instanceof LeaseLockError) return error;
  if (error instanceof ApiException) {
    const status = (error as ApiException<unknown>).code;
    const body = parseBody((error as ApiException<unknown>).body);
    const reason: LeaseErrorReason =
      status === 409
        ? body?.reason === 'AlreadyExists'
          ? 'AlreadyExists'
          : 'Conflict'
        : (STATUS_REASONS[status] ?? 'Unknown');
    return new LeaseLockError(reason, `${what}: HTTP ${status}${body?.message ? `: ${body.message}` : ''}`, {
      status,
      cause: error,
    });
  }
  if (signal.aborted) {
    return signal.reason instanceof RequestTimeout
      ? new LeaseLockError('Timeout', `${what}: no answer within ${timeoutMs} ms`, { cause: error })
      : new LeaseLockError('Timeout', `${what}: cancelled`, { cause: error });
  }
  return new LeaseLockError('Unavailable', `${what}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}

function parseBody(body: unknown): { reason?: string; message?: string } | undefined {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { reason?: string; message?: string };
    } catch {
      return undefined;
    }
  }
  return typeof body === 'object' && body !== null
    ? (body as { reason?: string; message?: string })
    : undefined;
}

/** Dates come back from client-node as strings (MicroTime is not in its type map) or Date objects. */
function timeString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function fromV1Lease(lease: V1Lease): LeaseObject {
  const spec = lease.spec;
  const wire: LeaseSpecWire = {};
  if (spec) {
    if (spec.holderIdentity !== undefined) wire.holderIdentity = spec.holderIdentity;
    if (spec.leaseDurationSeconds !== undefined) wire.leaseDurationSeconds = spec.leaseDurationSeconds;
    const acquire = timeString(spec.acquireTime);
    if (acquire !== undefined) wire.acquireTime = acquire;
    const renew = timeString(spec.renewTime);
    if (renew !== undefined) wire.renewTime = renew;
    if (spec.leaseTransitions !== undefined) wire.leaseTransitions = spec.leaseTransitions;
    if (spec.strategy) wire.strategy = spec.strategy;
    if (spec.preferredHolder) wire.preferredHolder = spec.preferredHolder;
  }
  return {
    apiVersion: lease.apiVersion ?? 'coordination.k8s.io/v1',
    kind: lease.kind ?? 'Lease',
    metadata: {
      name: lease.metadata?.name ?? '',
      namespace: lease.metadata?.namespace ?? '',
      ...(lease.metadata?.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
      ...(lease.metadata?.uid ? { uid: lease.metadata.uid } : {}),
      ...(lease.metadata?.creationTimestamp
        ? { creationTimestamp: timeString(lease.metadata.creationTimestamp) }
        : {}),
    },
    spec: wire,
  };
}

/** MicroTime strings are passed through as is (client-node serializes unknown types verbatim), keeping microseconds. */
function toV1Lease(lease: LeaseObject): V1Lease {
  const { creationTimestamp: _created, ...metadata } = lease.metadata;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata,
    spec: { ...lease.spec },
  } as unknown as V1Lease;
}
