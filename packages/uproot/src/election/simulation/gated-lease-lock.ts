import type { LeaseLock } from '../lease-lock/lease-lock.js';
import type { PausableClock } from './pausable-clock.js';

/**
 * Wraps a lock so a paused process does not see the answers to its requests until it resumes (the requests
 * themselves still reach the store, as they would have left the process before it froze).
 */
export function gatedLeaseLock(lock: LeaseLock, clock: PausableClock): LeaseLock {
  const gated = async <T>(work: Promise<T>): Promise<T> => {
    try {
      const result = await work;
      await clock.gate();
      return result;
    } catch (error) {
      await clock.gate();
      throw error;
    }
  };
  return {
    identity: lock.identity,
    describe: () => lock.describe(),
    get: (signal) => gated(lock.get(signal)),
    create: (record, signal) => gated(lock.create(record, signal)),
    update: (record, signal) => gated(lock.update(record, signal)),
    ...(lock.recordEvent ? { recordEvent: (message: string) => lock.recordEvent!(message) } : {}),
  };
}
