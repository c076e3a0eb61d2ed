import { z } from 'zod';
import type { ClockSample } from '../../clock/index.js';
import { AccessError } from '../../errors/index.js';

/** What a clock endpoint answers (the sandbox's `GET /v1/clock`, docs/sandbox.md). */
const clockAnswer = z.object({ nowMs: z.number().finite() });

/** One request's time limit: a sample later than this is no use to a clock polled every 20 ms. */
const SAMPLE_TIMEOUT_MS = 2_000;

/** Samples the clock an HTTP endpoint serves: `GET url` → `{"nowMs": <ms since the epoch>}`. */
export function httpClockSample(url: URL, fetchImpl: typeof fetch = fetch): ClockSample {
  return async () => {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(SAMPLE_TIMEOUT_MS) });
    if (!response.ok)
      throw new AccessError('UP-CLOCK-UNREACHABLE', `${url.href} answered ${response.status}`);
    const parsed = clockAnswer.safeParse(await response.json());
    if (!parsed.success)
      throw new AccessError('UP-CLOCK-UNREACHABLE', `${url.href} did not answer {"nowMs": <number>}`);
    return parsed.data.nowMs;
  };
}
