import { LeaseLockError } from '../errors.js';
import {
  leaseSpecToRecord,
  rawRecord,
  recordToLeaseSpec,
  type LeaderElectionRecord,
  type LeaseObject,
} from './lease-record.js';

/**
 * The lock port the elector talks to: client-go's resourcelock.Interface, for leases. Implementations keep
 * the lease from the last get/create/update and update with its resourceVersion (optimistic concurrency).
 */
export interface LeaseLock {
  /** The identity written as holder; unique per participant (upstream: hostname + "_" + UUID). */
  readonly identity: string;
  /** `namespace/name`, for messages. */
  describe(): string;
  /** The current record and `rawRecord(record)` for change detection. Rejects with reason NotFound when absent. */
  get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Replaces the whole spec. Needs a cached lease from a previous get or create. */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Emits `<identity> <message>` (reason LeaderElection) to the event sink, when there is one. */
  recordEvent?(message: string): void;
}

/** A leader-election event, as the Kubernetes event recorder would receive it. */
export interface LeaderElectionEvent {
  readonly reason: 'LeaderElection';
  readonly type: 'Normal';
  /** `<identity> became leader`, `<identity> stopped leading`. */
  readonly message: string;
  /** `namespace/name` of the lease. */
  readonly lease: string;
}

export type LeaderElectionEventSink = (event: LeaderElectionEvent) => void;

/** The three lease calls a lock needs; one implementation per backend (client-node, the memory store). */
export interface LeaseApi {
  read(namespace: string, name: string, signal?: AbortSignal): Promise<LeaseObject>;
  create(lease: LeaseObject, signal?: AbortSignal): Promise<LeaseObject>;
  /** PUT: fails with Conflict when `metadata.resourceVersion` is stale. */
  replace(lease: LeaseObject, signal?: AbortSignal): Promise<LeaseObject>;
}

export interface ApiLeaseLockOptions {
  readonly api: LeaseApi;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly eventSink?: LeaderElectionEventSink;
}

/** leaselock.go over any LeaseApi: the one implementation of the caching and mapping rules. */
export class ApiLeaseLock implements LeaseLock {
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  private readonly api: LeaseApi;
  private readonly eventSink: LeaderElectionEventSink | undefined;
  private cached: LeaseObject | undefined;

  constructor(options: ApiLeaseLockOptions) {
    this.api = options.api;
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity;
    this.eventSink = options.eventSink;
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }> {
    const lease = await this.api.read(this.namespace, this.name, signal);
    this.cached = lease;
    const record = leaseSpecToRecord(lease.spec);
    return { record, raw: rawRecord(record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.cached = await this.api.create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: recordToLeaseSpec(record),
      },
      signal,
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.cached) {
      throw new LeaseLockError('NotInitialized', 'lease not initialized, call get or create first');
    }
    this.cached = await this.api.replace({ ...this.cached, spec: recordToLeaseSpec(record) }, signal);
  }

  recordEvent(message: string): void {
    this.eventSink?.({
      reason: 'LeaderElection',
      type: 'Normal',
      message: `${this.identity} ${message}`,
      lease: this.describe(),
    });
  }
}
