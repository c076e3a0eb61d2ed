import type { Random } from 'uproot';
import {
  ApiStatusError,
  conflict,
  internalError,
  serviceUnavailable,
  timeoutError,
  tooManyRequests,
} from '../status/api-status-error.js';

/** What a fault rule can match on; every given field must match. */
export interface FaultMatch {
  /** HTTP method (`GET`, `PATCH`…). */
  readonly method?: string;
  /** API verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`). */
  readonly verb?: string;
  /** Plural resource, optionally group-qualified: `leases` or `leases.coordination.k8s.io`. */
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** A path prefix, or a regular expression tested against the path. */
  readonly path?: string | RegExp;
  readonly user?: string;
}

export type FaultAction =
  /** Answer with a Status of this code: 500, 429 (with Retry-After), 409, 503, 504… */
  | {
      readonly type: 'status';
      readonly code: number;
      readonly message?: string;
      readonly retryAfterSeconds?: number;
    }
  /** Never answer; with `ms`, give up after that long with a 504 Timeout. */
  | { readonly type: 'hang'; readonly ms?: number }
  /** Drop the connection without an answer. */
  | { readonly type: 'reset' };

export interface FaultRule {
  readonly match?: FaultMatch;
  readonly action: FaultAction;
  /** Only the next N matching requests (default: all of them). */
  readonly times?: number;
  /** Chance in [0, 1] that a matching request fails, drawn from the server's injected Random. */
  readonly probability?: number;
  /** Draws `probability` from this instead (a user's fault spec has its own seed). */
  readonly random?: Random;
}

export interface LatencyRule {
  readonly match?: FaultMatch;
  /** Added real-time delay before the request is handled. */
  readonly ms: number;
  readonly jitterMs?: number;
  /** Draws the jitter from this instead of the server's Random. */
  readonly random?: Random;
}

export interface FaultHandle {
  readonly id: number;
  /** How many requests this rule has affected. */
  hits(): number;
  remove(): void;
}

/** The request facts rules are matched against. */
export interface FaultRequest {
  readonly method: string;
  readonly path: string;
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly user: string;
}

export interface DropWatchesFilter {
  readonly resource?: string;
  readonly namespace?: string;
  /** Destroy the sockets instead of ending the streams cleanly. */
  readonly abrupt?: boolean;
}

export function faultMatches(match: FaultMatch | undefined, r: FaultRequest): boolean {
  if (!match) return true;
  if (match.method !== undefined && match.method.toUpperCase() !== r.method) return false;
  if (match.verb !== undefined && match.verb !== r.verb) return false;
  if (match.resource !== undefined) {
    const qualified = r.apiGroup ? `${r.resource}.${r.apiGroup}` : r.resource;
    if (match.resource !== r.resource && match.resource !== qualified) return false;
  }
  if (match.subresource !== undefined && match.subresource !== r.subresource) return false;
  if (match.namespace !== undefined && match.namespace !== r.namespace) return false;
  if (match.name !== undefined && match.name !== r.name) return false;
  if (match.user !== undefined && match.user !== r.user) return false;
  if (match.path !== undefined) {
    if (typeof match.path === 'string' ? !r.path.startsWith(match.path) : !match.path.test(r.path))
      return false;
  }
  return true;
}

/** The Status a `status` action answers with. */
export function faultError(
  action: Extract<FaultAction, { type: 'status' }>,
  r: FaultRequest,
): ApiStatusError {
  switch (action.code) {
    case 429:
      return tooManyRequests(action.retryAfterSeconds ?? 1, action.message);
    case 409:
      return conflict({ group: r.apiGroup, resource: r.resource }, r.name, action.message);
    case 500:
      return internalError(action.message ?? 'injected fault');
    case 503:
      return serviceUnavailable(action.message);
    case 504:
      return timeoutError();
    default:
      return new ApiStatusError({
        message: action.message ?? 'injected fault',
        reason: 'InternalError',
        code: action.code,
      });
  }
}

interface Entry<T> {
  readonly id: number;
  readonly rule: T;
  hits: number;
}

/**
 * Per-request failures and delays for reliability tests, driven through the server handle
 * (`server.faults.add({ match: { verb: 'update', resource: 'leases' }, action: { type: 'status', code: 500 }, times: 2 })`).
 */
export class FaultInjector {
  private nextId = 1;
  private readonly rules: Entry<FaultRule>[] = [];
  private readonly latencies: Entry<LatencyRule>[] = [];

  constructor(
    private readonly random: Random,
    private readonly dropper: (filter: DropWatchesFilter) => number,
  ) {}

  /** Whether any rule or latency is configured (lets the request path skip matching entirely). */
  get active(): boolean {
    return this.rules.length > 0 || this.latencies.length > 0;
  }

  add(rule: FaultRule): FaultHandle {
    return this.register(this.rules, rule);
  }

  /** Shorthand: the next `n` requests matching `match` get `action`. */
  failNext(n: number, match: FaultMatch, action: FaultAction): FaultHandle {
    return this.add({ match, action, times: n });
  }

  addLatency(rule: LatencyRule): FaultHandle {
    return this.register(this.latencies, rule);
  }

  /** Ends open watch streams (all, or of one resource/namespace); returns how many. */
  dropWatches(filter: DropWatchesFilter = {}): number {
    return this.dropper(filter);
  }

  clear(): void {
    this.rules.length = 0;
    this.latencies.length = 0;
  }

  /** The action for this request, if a rule fires (consuming one of its `times`). */
  pick(r: FaultRequest): FaultAction | undefined {
    for (const entry of this.rules) {
      const { rule } = entry;
      if (rule.times !== undefined && entry.hits >= rule.times) continue;
      if (!faultMatches(rule.match, r)) continue;
      if (rule.probability !== undefined && (rule.random ?? this.random)() >= rule.probability) continue;
      entry.hits++;
      return rule.action;
    }
    return undefined;
  }

  /** Total added delay in ms for this request (0 when no latency rule matches). */
  latencyFor(r: FaultRequest): number {
    let total = 0;
    for (const entry of this.latencies) {
      if (!faultMatches(entry.rule.match, r)) continue;
      entry.hits++;
      total +=
        entry.rule.ms +
        (entry.rule.jitterMs ? (entry.rule.random ?? this.random)() * entry.rule.jitterMs : 0);
    }
    return total;
  }

  private register<T>(list: Entry<T>[], rule: T): FaultHandle {
    const entry: Entry<T> = { id: this.nextId++, rule, hits: 0 };
    list.push(entry);
    return {
      id: entry.id,
      hits: () => entry.hits,
      remove: () => {
        const i = list.indexOf(entry);
        if (i >= 0) list.splice(i, 1);
      },
    };
  }
}
