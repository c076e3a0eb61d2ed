/**
 * The one way uproot reads or waits on time. Everything that waits, retries or elects takes a Clock, so the
 * same code runs in real time, in scaled time (the sandbox's --time-scale) or in virtual time (tests and
 * rehearsals, which never sleep).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, in this clock's time. */
  now(): number;
  /** Resolves after `ms` of this clock's time. Rejects with the signal's reason if it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Declares real I/O in flight (an HTTP call, a file write). A virtual clock does not advance while any is
   * pending, so a simulated second never passes in the middle of a request. Real clocks return `work` as is.
   */
  track<T>(work: Promise<T>): Promise<T>;
}

/** Rejects with the abort reason, or a standard AbortError when none was given. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}
