import type { Random } from 'uproot';
import { AwsApiError } from '../protocol/aws-api-error.js';
import type { LoggedService } from '../log/request-log.js';

/**
 * Injected trouble, per service/action/caller: throttling (the code AWS uses for that service), any error
 * code and status, and latency. A rule fires with a probability (drawn from the injected Random, so a seeded run
 * throttles the same calls every time) and optionally only `times` times ("the next 2 calls").
 */
export interface FaultTarget {
  /** Which service; all when omitted. */
  readonly service?: LoggedService;
  /** Which action (`DescribeInstances`), or a pattern of actions (`/^(?!Describe)/`); all when omitted. */
  readonly action?: string | RegExp;
  /** Only calls from this caller ARN. */
  readonly caller?: string;
}

export interface FaultFrequency {
  /** Chance in [0, 1] that a matching call is affected; 1 when omitted. */
  readonly probability?: number;
  /** Affect at most this many calls, then the rule retires; unlimited when omitted. */
  readonly times?: number;
}

export type FaultEffect =
  | { readonly type: 'throttle' }
  | { readonly type: 'error'; readonly code: string; readonly status?: number; readonly message?: string }
  | { readonly type: 'latency'; readonly ms: number };

export interface FaultRule extends FaultTarget, FaultFrequency {
  readonly effect: FaultEffect;
}

export interface FaultHandle {
  readonly id: number;
  readonly rule: FaultRule;
  /** Calls this rule has affected so far. */
  readonly fired: number;
  remove(): void;
}

/** What the rules decided for one request. */
export interface FaultDecision {
  readonly latencyMs: number;
  readonly error: AwsApiError | undefined;
  /** Names of the effects applied, for the request log. */
  readonly applied: readonly string[];
}

interface ActiveRule {
  readonly id: number;
  readonly rule: FaultRule;
  fired: number;
}

/** The code and status AWS uses to throttle each service (the SDK retries all of them). */
export function throttlingError(service: LoggedService): AwsApiError {
  if (service === 'ec2') return new AwsApiError('RequestLimitExceeded', 'Request limit exceeded.', 503);
  return new AwsApiError('Throttling', 'Rate exceeded', 400);
}

export class FaultInjector {
  private rules: ActiveRule[] = [];
  private nextId = 1;

  constructor(private readonly random: Random) {}

  add(rule: FaultRule): FaultHandle {
    if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
      throw new RangeError(`fault probability must be within [0, 1], got ${rule.probability}`);
    }
    if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
      throw new RangeError(`fault times must be a non-negative integer, got ${rule.times}`);
    }
    const active: ActiveRule = { id: this.nextId++, rule, fired: 0 };
    this.rules.push(active);
    return {
      id: active.id,
      rule,
      get fired() {
        return active.fired;
      },
      remove: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  /** Throttle matching calls with the service's throttling code. */
  throttle(options: FaultTarget & FaultFrequency = {}): FaultHandle {
    return this.add({ ...options, effect: { type: 'throttle' } });
  }

  /** Fail matching calls with any code and status (400 when omitted). */
  fail(
    options: FaultTarget & FaultFrequency & { code: string; status?: number; message?: string },
  ): FaultHandle {
    const { code, status, message, ...rest } = options;
    return this.add({ ...rest, effect: { type: 'error', code, status, message } });
  }

  /** Delay matching calls by `ms` of the emulator's clock time. */
  delay(options: FaultTarget & FaultFrequency & { ms: number }): FaultHandle {
    const { ms, ...rest } = options;
    return this.add({ ...rest, effect: { type: 'latency', ms } });
  }

  clear(): void {
    this.rules = [];
  }

  get active(): readonly FaultRule[] {
    return this.rules.map((r) => r.rule);
  }

  decide(request: { service: LoggedService; action: string; caller?: string | undefined }): FaultDecision {
    let latencyMs = 0;
    let error: AwsApiError | undefined;
    const applied: string[] = [];
    for (const active of [...this.rules]) {
      const { rule } = active;
      if (rule.service !== undefined && rule.service !== request.service) continue;
      if (typeof rule.action === 'string' && rule.action !== request.action) continue;
      if (rule.action instanceof RegExp && !rule.action.test(request.action)) continue;
      if (rule.caller !== undefined && rule.caller !== request.caller) continue;
      // Once an error is chosen, later error rules do not consume their budget.
      if (error && rule.effect.type !== 'latency') continue;
      if (rule.times !== undefined && active.fired >= rule.times) continue;
      if (rule.probability !== undefined && rule.probability < 1 && !(this.random() < rule.probability))
        continue;
      active.fired++;
      if (rule.times !== undefined && active.fired >= rule.times) {
        this.rules = this.rules.filter((r) => r !== active);
      }
      const effect = rule.effect;
      applied.push(effect.type);
      if (effect.type === 'latency') latencyMs += effect.ms;
      else if (effect.type === 'throttle') error = throttlingError(request.service);
      else
        error = new AwsApiError(
          effect.code,
          effect.message ?? `Injected fault: ${effect.code}`,
          effect.status ?? 400,
        );
    }
    return { latencyMs, error, applied };
  }
}
