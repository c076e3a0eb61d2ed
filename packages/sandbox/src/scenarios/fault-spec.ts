import { z } from 'zod';
import { InputError } from 'uproot';

/**
 * Faults a user turns on for a rehearsal (docs/sandbox.md, "Faults"): the `faults:` field of a scenario, and
 * `uproot sandbox up|demo --faults SPEC`, which parses to the same object. Every rate is drawn from a
 * Random seeded by `seed` (the scenario's seed when absent), so a seed replays the same decisions.
 */

const rate = z.number().min(0).max(1);

const apiFaults = z
  .object({
    /** 5xx answers (InternalError 500, ServiceUnavailable 503…) to this share of API requests. */
    errors: z
      .object({
        rate,
        codes: z
          .array(z.union([z.literal(500), z.literal(503), z.literal(504)]))
          .min(1)
          .default([500, 503]),
      })
      .strict()
      .optional(),
    /** 429 TooManyRequests with Retry-After (API Priority and Fairness rejecting a request). */
    throttle: z
      .object({ rate, retryAfterSeconds: z.number().int().min(1).max(60).default(1) })
      .strict()
      .optional(),
    /** Added before every request is served (real milliseconds: requests are real I/O). */
    latency: z
      .object({
        ms: z.number().int().min(0).max(10_000),
        jitterMs: z.number().int().min(0).max(10_000).default(0),
      })
      .strict()
      .optional(),
    /** Every this many simulated seconds, every open watch stream ends (clients list and watch again). */
    dropWatches: z.object({ everySeconds: z.number().min(1).max(86_400) }).strict().optional(),
  })
  .strict();

export const faultsSchema = z
  .object({
    seed: z.number().int().min(0).optional(),
    api: apiFaults.default({}),
    /** A node stops renewing its Lease for this long when a roll first restarts a kubelet. */
    nodeNotReady: z
      .object({ seconds: z.number().min(1).max(3_600).default(60) })
      .strict()
      .optional(),
    /** The first cloud-controller-manager container exits with status 1 on each of its first N starts. */
    ccmCrashLoop: z
      .object({ restarts: z.number().int().min(1).max(10) })
      .strict()
      .optional(),
    aws: z
      .object({
        /** RequestLimitExceeded (EC2) or Throttling (the Query services) for this share of calls. */
        throttle: z.object({ rate }).strict().optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

export type FaultsInput = z.input<typeof faultsSchema>;
export type Faults = z.output<typeof faultsSchema>;

/**
 * `--faults` with no value, or `--faults default`: a bit of everything, at rates a healthy control plane
 * shrugs off and uproot's retries must absorb.
 */
export const DEFAULT_FAULTS: FaultsInput = {
  api: {
    errors: { rate: 0.01 },
    throttle: { rate: 0.01, retryAfterSeconds: 1 },
    latency: { ms: 2, jitterMs: 3 },
    dropWatches: { everySeconds: 120 },
  },
  nodeNotReady: { seconds: 60 },
  ccmCrashLoop: { restarts: 2 },
  aws: { throttle: { rate: 0.05 } },
};

const SYNTAX =
  'a comma-separated list of default, none, api-errors=RATE, api-throttle=RATE, retry-after=SECONDS, api-latency=MS[+JITTER], watch-drops=SECONDS, node-notready=SECONDS, ccm-crashloop=N, aws-throttle=RATE, seed=N (RATE: 0.02 or 2%)';

function specError(flag: string, value: string, what: string): InputError {
  return new InputError('UP-SANDBOX-FAULTS', `${flag} ${JSON.stringify(value)}: ${what}`, {
    location: { field: flag, value },
    hint: `${flag} takes ${SYNTAX}; e.g. ${flag} default,aws-throttle=10%,seed=7`,
  });
}

type Item = (value: string, into: Draft) => void;
interface Draft {
  seed?: number;
  api: NonNullable<FaultsInput['api']>;
  nodeNotReady?: FaultsInput['nodeNotReady'];
  ccmCrashLoop?: FaultsInput['ccmCrashLoop'];
  aws: NonNullable<FaultsInput['aws']>;
}

/** What is wrong with one item's value (caught by parseFaultsFlag, which adds the flag and the spec). */
class ItemProblem {
  constructor(readonly what: string) {}
}

function number(text: string, what: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new ItemProblem(`${what} must be a number, not "${text}"`);
  return n;
}

function rateOf(text: string): number {
  const n = text.endsWith('%') ? number(text.slice(0, -1), 'a rate') / 100 : number(text, 'a rate');
  if (!(n >= 0 && n <= 1)) throw new ItemProblem(`a rate is from 0 to 1 (or 0% to 100%), not "${text}"`);
  return n;
}

const seconds = (text: string): number => number(text.replace(/s$/, ''), 'seconds');

const ITEMS: Readonly<Record<string, Item>> = {
  'api-errors': (v, d) => (d.api = { ...d.api, errors: { rate: rateOf(v) } }),
  'api-throttle': (v, d) =>
    (d.api = { ...d.api, throttle: { retryAfterSeconds: 1, ...d.api.throttle, rate: rateOf(v) } }),
  'retry-after': (v, d) =>
    (d.api = { ...d.api, throttle: { rate: 0, ...d.api.throttle, retryAfterSeconds: seconds(v) } }),
  'api-latency': (v, d) => {
    const [ms, jitter] = v.replace(/ms/g, '').split('+');
    d.api = {
      ...d.api,
      latency: { ms: number(ms ?? '', 'latency'), jitterMs: jitter ? number(jitter, 'jitter') : 0 },
    };
  },
  'watch-drops': (v, d) => (d.api = { ...d.api, dropWatches: { everySeconds: seconds(v) } }),
  'node-notready': (v, d) => (d.nodeNotReady = { seconds: seconds(v) }),
  'ccm-crashloop': (v, d) => (d.ccmCrashLoop = { restarts: number(v, 'restarts') }),
  'aws-throttle': (v, d) => (d.aws = { ...d.aws, throttle: { rate: rateOf(v) } }),
  seed: (v, d) => (d.seed = number(v, 'seed')),
};

function defaultDraft(): Draft {
  return structuredClone({ api: {}, aws: {}, ...DEFAULT_FAULTS }) as Draft;
}

/**
 * The `--faults` flag: `true` (no value) and `default` are DEFAULT_FAULTS; later items override earlier ones
 * (`default,aws-throttle=0`). A bad spec is a located InputError (flag, value, what to change).
 */
export function parseFaultsFlag(value: string | true, flag = '--faults'): Faults {
  const text = value === true ? 'default' : value.trim();
  let draft: Draft = { api: {}, aws: {} };
  if (text === '') throw specError(flag, text, 'is empty');
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === 'default') {
      draft = { ...defaultDraft(), ...(draft.seed !== undefined ? { seed: draft.seed } : {}) };
      continue;
    }
    if (item === 'none') {
      draft = { api: {}, aws: {} };
      continue;
    }
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const apply = Object.hasOwn(ITEMS, key) ? ITEMS[key] : undefined;
    if (!apply) throw specError(flag, text, `"${key}" is not a fault`);
    if (eq < 0) throw specError(flag, text, `${key} needs a value (${key}=…)`);
    try {
      apply(item.slice(eq + 1).trim(), draft);
    } catch (error) {
      if (error instanceof ItemProblem) throw specError(flag, text, `${key}: ${error.what}`);
      throw error;
    }
  }
  const parsed = faultsSchema.safeParse(draft);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw specError(flag, text, `${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Whether a spec turns anything on. */
export function anyFaults(f: Faults | undefined): f is Faults {
  if (!f) return false;
  const { errors, throttle, latency, dropWatches } = f.api;
  return Boolean(
    errors?.rate ||
    throttle?.rate ||
    latency?.ms ||
    latency?.jitterMs ||
    dropWatches ||
    f.nodeNotReady ||
    f.ccmCrashLoop ||
    f.aws.throttle?.rate,
  );
}

/** The scenario with the faults of a `--faults` flag in place of its own `faults:` (when given). */
export function withFaults<S extends { readonly faults?: Faults | undefined }>(
  scenario: S,
  faults: Faults | undefined,
): S {
  return faults ? { ...scenario, faults } : scenario;
}
