/**
 * Polls a gate until it passes, fails for good, or its deadline passes, with exponential backoff on the
 * injected clock and an AbortSignal. Never loops without a deadline (a gate without one is looked at once).
 */
import type { Clock, Random } from '../../clock/index.js';
import { ExitCode, UprootError } from '../../errors/index.js';
import type { GateResult } from '../journal/journal-schema.js';
import type { GateVerdict } from './gate-verdict.js';

export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
}

export const DEFAULT_GATE_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 15_000, factor: 2 };

export interface WaitForGateOptions {
  readonly clock: Clock;
  /** Undefined: look once (no deadline, no polling). */
  readonly timeoutMs: number | undefined;
  readonly signal?: AbortSignal;
  readonly backoff?: Backoff;
  /** Jitter of ±10% per delay, so many gates do not poll in lockstep. */
  readonly random?: Random;
  readonly onVerdict?: (verdict: GateVerdict, at: number) => void;
}

export async function waitForGate(
  look: () => Promise<GateVerdict>,
  options: WaitForGateOptions,
): Promise<GateResult> {
  const { clock, signal } = options;
  const backoff = options.backoff ?? DEFAULT_GATE_BACKOFF;
  const start = clock.now();
  const deadline = options.timeoutMs === undefined ? start : start + options.timeoutMs;
  let delay = backoff.initialMs;
  for (;;) {
    signal?.throwIfAborted();
    const verdict = await lookSafely(look);
    const now = clock.now();
    options.onVerdict?.(verdict, now);
    switch (verdict.type) {
      case 'pass':
        return { type: 'passed', after: now - start, detail: verdict.detail };
      case 'fail':
        return { type: 'failed', reason: verdict.reason, fix: verdict.fix };
      case 'wait':
        break;
    }
    if (now >= deadline) {
      return options.timeoutMs === undefined
        ? { type: 'failed', reason: verdict.reason, fix: verdict.fix }
        : { type: 'timed-out', last: verdict.reason, fix: verdict.fix };
    }
    const jitter = options.random ? 1 + (options.random() - 0.5) / 5 : 1;
    await clock.sleep(Math.min(delay * jitter, deadline - now), signal);
    delay = Math.min(delay * backoff.factor, backoff.maxMs);
  }
}

/**
 * A transient read error (a 500, a dropped connection) is one more "not yet"; a refusal that will not go away
 * by waiting (401/403, bad input) or an abort is thrown.
 */
async function lookSafely(look: () => Promise<GateVerdict>): Promise<GateVerdict> {
  try {
    return await look();
  } catch (error) {
    if (UprootError.is(error) && error.exitCode !== ExitCode.failed) throw error;
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    const message = error instanceof Error ? error.message : String(error);
    return {
      type: 'wait',
      reason: `could not read the cluster: ${message}`,
      fix: 'check that the API server is reachable',
    };
  }
}
