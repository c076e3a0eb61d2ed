/**
 * The leader-election record and its mapping to a coordination.k8s.io/v1 LeaseSpec, as client-go's
 * resourcelock/leaselock.go does it. Times are milliseconds since the epoch on the writer's clock.
 */
export interface LeaderElectionRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** Undefined is Go's zero time (marshalled as null). */
  readonly acquireTime: number | undefined;
  readonly renewTime: number | undefined;
  readonly leaderTransitions: number;
  /** Coordinated leader election only; written only when non-empty. */
  readonly strategy?: string;
  readonly preferredHolder?: string;
}

/** The LeaseSpec as it travels on the wire (MicroTime as RFC 3339 strings with microseconds). */
export interface LeaseSpecWire {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

/** A Lease object, reduced to what leader election reads and writes. */
export interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
  };
  spec?: LeaseSpecWire;
}

export const EMPTY_RECORD: LeaderElectionRecord = {
  holderIdentity: '',
  leaseDurationSeconds: 0,
  acquireTime: undefined,
  renewTime: undefined,
  leaderTransitions: 0,
};

/**
 * LeaderElectionRecordToLeaseSpec: every field is written (holder even when ""), strategy and preferredHolder
 * only when non-empty. The caller replaces the whole spec with this, so anything not here is cleared.
 */
export function recordToLeaseSpec(record: LeaderElectionRecord): LeaseSpecWire {
  const spec: LeaseSpecWire = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: formatMicroTime(record.acquireTime),
    renewTime: formatMicroTime(record.renewTime),
    leaseTransitions: record.leaderTransitions,
  };
  if (record.strategy) spec.strategy = record.strategy;
  if (record.preferredHolder) spec.preferredHolder = record.preferredHolder;
  return spec;
}

/** LeaseSpecToLeaderElectionRecord: absent fields read as Go zero values. */
export function leaseSpecToRecord(spec: LeaseSpecWire | undefined): LeaderElectionRecord {
  const s = spec ?? {};
  const record: LeaderElectionRecord = {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: parseMicroTime(s.acquireTime),
    renewTime: parseMicroTime(s.renewTime),
    leaderTransitions: s.leaseTransitions ?? 0,
  };
  return {
    ...record,
    ...(s.strategy ? { strategy: s.strategy } : {}),
    ...(s.preferredHolder ? { preferredHolder: s.preferredHolder } : {}),
  };
}

/**
 * json.Marshal(record) as client-go returns it from Get: metav1.Time marshals at one-second precision (RFC 3339,
 * UTC, truncated), the zero time as null, and every field is present in declaration order. Two records that
 * differ only below the second compare equal, exactly as upstream's change detection sees them.
 */
export function rawRecord(record: LeaderElectionRecord): string {
  return JSON.stringify({
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: formatSecondTime(record.acquireTime),
    renewTime: formatSecondTime(record.renewTime),
    leaderTransitions: record.leaderTransitions,
    strategy: record.strategy ?? '',
    preferredHolder: record.preferredHolder ?? '',
  });
}

/** metav1.MicroTime: `2006-01-02T15:04:05.000000Z` in UTC; the zero time is omitted (undefined). */
export function formatMicroTime(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const micros = Math.floor(ms * 1000);
  const wholeMs = Math.floor(micros / 1000);
  const extra = micros - wholeMs * 1000;
  const iso = new Date(wholeMs).toISOString(); // ...sss Z
  return `${iso.slice(0, -1)}${String(extra).padStart(3, '0')}Z`;
}

/** metav1.Time marshalling: seconds, UTC, `Z`; null for the zero time. */
export function formatSecondTime(ms: number | undefined): string | null {
  if (ms === undefined) return null;
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Parses RFC 3339 with up to nanosecond fractions into (fractional) milliseconds; tolerates Date objects. */
export function parseMicroTime(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string') return undefined;
  const m = RFC3339.exec(value);
  if (!m) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  const whole = Date.parse(`${m[1]}${m[3]}`);
  const fraction = m[2] ? Number(`0.${m[2]}`) * 1000 : 0;
  return whole + Math.round(fraction * 1000) / 1000;
}
