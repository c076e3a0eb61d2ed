/**
 * A retry strategy for the SDK v3 clients with a caller-chosen delay (tests pass 0, so a throttled call is
 * retried without waiting in real time). Structurally the SDK's RetryStrategyV2: it retries throttling,
 * transient and server errors up to `maxAttempts` in total; giving up makes the SDK rethrow the last error.
 */
import { InternalError } from '../../errors/index.js';
export interface RetryToken {
  getRetryCount(): number;
  getRetryDelay(): number;
}

export interface RetryErrorInfo {
  readonly errorType: 'TRANSIENT' | 'THROTTLING' | 'SERVER_ERROR' | 'CLIENT_ERROR';
}

export interface FixedDelayRetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  refreshRetryTokenForRetry(token: RetryToken, info: RetryErrorInfo): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}

export function retryStrategy(
  maxAttempts: number,
  delayMs: (retry: number) => number,
): FixedDelayRetryStrategy {
  const token = (count: number, delay: number): RetryToken => ({
    getRetryCount: () => count,
    getRetryDelay: () => delay,
  });
  return {
    acquireInitialRetryToken: async () => token(0, 0),
    refreshRetryTokenForRetry: async (previous, info) => {
      const next = previous.getRetryCount() + 1;
      if (info.errorType === 'CLIENT_ERROR' || next >= maxAttempts)
        throw new InternalError('no retry left: the AWS SDK reports the last error instead');
      return token(next, delayMs(next));
    },
    recordSuccess: () => undefined,
  };
}
