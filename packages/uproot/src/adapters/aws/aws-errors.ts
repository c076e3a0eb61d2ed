/**
 * Turns SDK errors into the reasons checks skip with. Missing or rejected credentials make every AWS check
 * skip; AccessDenied on one call skips only what needed it; throttling that outlasted the retries says so.
 */
export type AwsFailureKind =
  'no-credentials' | 'bad-credentials' | 'access-denied' | 'throttled' | 'unreachable' | 'other';

const THROTTLING = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestThrottled',
  'SlowDown',
]);
const DENIED = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'UnauthorizedAccess',
]);
const BAD_CREDENTIALS = new Set([
  'AuthFailure',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
]);

export function awsFailureKind(error: unknown): AwsFailureKind {
  const e = error as { name?: string; Code?: string; code?: string };
  const code = e.Code ?? e.name ?? '';
  if (
    code === 'CredentialsProviderError' ||
    /Could not load credentials/i.test(String((error as Error)?.message))
  )
    return 'no-credentials';
  if (BAD_CREDENTIALS.has(code)) return 'bad-credentials';
  if (DENIED.has(code)) return 'access-denied';
  if (THROTTLING.has(code)) return 'throttled';
  if (
    ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN'].includes(e.code ?? '') ||
    code === 'TimeoutError'
  ) {
    return 'unreachable';
  }
  return 'other';
}

/** A one-line reason naming the call: `AccessDenied on iam:GetInstanceProfile: …`. */
export function awsFailureReason(error: unknown, call: string): string {
  const e = error as { name?: string; message?: string; $metadata?: { attempts?: number } };
  const kind = awsFailureKind(error);
  const message = (e.message ?? String(error)).split('\n')[0];
  switch (kind) {
    case 'no-credentials':
      return 'no AWS credentials (set AWS_PROFILE or AWS_ACCESS_KEY_ID, or run on an instance with a role)';
    case 'bad-credentials':
      return `the AWS credentials were rejected on ${call}: ${e.name}`;
    case 'access-denied':
      return `${e.name ?? 'AccessDenied'} on ${call}: ${message}`;
    case 'throttled':
      return `throttled on ${call} (${e.name}) after ${e.$metadata?.attempts ?? 'several'} attempts`;
    case 'unreachable':
      return `cannot reach AWS for ${call}: ${message}`;
    case 'other':
      return `${call} failed: ${e.name ? `${e.name}: ` : ''}${message}`;
  }
}
