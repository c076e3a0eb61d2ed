/**
 * Every call the emulator answered, for tests and benchmarks to count ("the CCM called DescribeInstances once
 * per node") and for people to read when a rehearsal misbehaves. Entries are kept in a bounded ring; counters
 * are exact however many calls were made. Secrets never reach the log: only the access key id and the caller ARN.
 */
export type LoggedService = 'ec2' | 'elb' | 'elbv2' | 'iam' | 'sts' | 'autoscaling' | 'imds' | 'unknown';

export interface RequestLogEntry {
  readonly seq: number;
  /** Clock time the request arrived (ms). */
  readonly at: number;
  readonly service: LoggedService;
  /** The API action, or for IMDS the method and path (`GET meta-data/instance-id`). */
  readonly action: string;
  /** The caller's ARN when known. */
  readonly caller?: string | undefined;
  readonly accessKeyId?: string | undefined;
  /** For IMDS: the instance whose metadata was read. */
  readonly instanceId?: string | undefined;
  readonly status: number;
  readonly errorCode?: string | undefined;
  /** A fault rule changed this request (`throttle`, `error`, `latency`). */
  readonly fault?: string | undefined;
}

export interface RequestLogQuery {
  readonly service?: LoggedService;
  readonly action?: string;
  readonly caller?: string;
  readonly errorCode?: string;
  readonly status?: number;
}

export class RequestLog {
  private ring: RequestLogEntry[] = [];
  private head = 0;
  private seq = 0;
  private readonly byAction = new Map<string, number>();
  private readonly byCallerAction = new Map<string, Map<string, number>>();
  private readonly byError = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  record(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full: RequestLogEntry = { seq: ++this.seq, ...entry };
    if (this.ring.length < this.capacity) this.ring.push(full);
    else {
      this.ring[this.head] = full;
      this.head = (this.head + 1) % this.capacity;
    }
    const key = `${entry.service}:${entry.action}`;
    this.byAction.set(key, (this.byAction.get(key) ?? 0) + 1);
    if (entry.caller !== undefined) {
      let perCaller = this.byCallerAction.get(entry.caller);
      if (!perCaller) this.byCallerAction.set(entry.caller, (perCaller = new Map()));
      perCaller.set(key, (perCaller.get(key) ?? 0) + 1);
    }
    if (entry.errorCode !== undefined) {
      const errorKey = `${key}:${entry.errorCode}`;
      this.byError.set(errorKey, (this.byError.get(errorKey) ?? 0) + 1);
    }
    return full;
  }

  /** Retained entries, oldest first, optionally filtered. */
  entries(query: RequestLogQuery = {}): RequestLogEntry[] {
    const ordered =
      this.ring.length < this.capacity
        ? this.ring
        : [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    return ordered.filter((e) => matches(e, query));
  }

  /**
   * How many calls matched. Exact (from counters) for service/action/caller/errorCode queries; a query on
   * `status` counts the retained entries only.
   */
  count(query: RequestLogQuery = {}): number {
    if (query.status !== undefined) return this.entries(query).length;
    if (query.errorCode !== undefined && query.caller === undefined) {
      return sumWhere(this.byError, (key) => {
        const [service, action, ...code] = key.split(':');
        return (
          (query.service === undefined || service === query.service) &&
          (query.action === undefined || action === query.action) &&
          code.join(':') === query.errorCode
        );
      });
    }
    if (query.errorCode !== undefined) return this.entries(query).length;
    const source = query.caller === undefined ? this.byAction : this.byCallerAction.get(query.caller);
    if (!source) return 0;
    return sumWhere(source, (key) => {
      const [service, action] = key.split(':');
      return (
        (query.service === undefined || service === query.service) &&
        (query.action === undefined || action === query.action)
      );
    });
  }

  /** `{ "ec2:DescribeInstances": 3, … }`, over every call since the last reset. */
  counters(): Record<string, number> {
    return Object.fromEntries(this.byAction);
  }

  /** Counters per caller ARN. */
  countersByCaller(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.byCallerAction].map(([caller, m]) => [caller, Object.fromEntries(m)]));
  }

  /** Total calls recorded since the last reset. */
  get total(): number {
    return this.seq;
  }

  reset(): void {
    this.ring = [];
    this.head = 0;
    this.seq = 0;
    this.byAction.clear();
    this.byCallerAction.clear();
    this.byError.clear();
  }
}

function matches(e: RequestLogEntry, q: RequestLogQuery): boolean {
  return (
    (q.service === undefined || e.service === q.service) &&
    (q.action === undefined || e.action === q.action) &&
    (q.caller === undefined || e.caller === q.caller) &&
    (q.errorCode === undefined || e.errorCode === q.errorCode) &&
    (q.status === undefined || e.status === q.status)
  );
}

function sumWhere(counts: ReadonlyMap<string, number>, keep: (key: string) => boolean): number {
  let total = 0;
  for (const [key, n] of counts) if (keep(key)) total += n;
  return total;
}
