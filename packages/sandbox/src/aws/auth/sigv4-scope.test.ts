import { describe, expect, it } from 'vitest';
import { parseCredentialScope } from './sigv4-scope.js';

describe('parseCredentialScope', () => {
  it('reads the key id, date, region and signing name from an Authorization header', () => {
    const header =
      'AWS4-HMAC-SHA256 Credential=AKIASANDBOXUPROOT001/20260101/us-east-1/elasticloadbalancing/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc';
    expect(parseCredentialScope(header)).toEqual({
      accessKeyId: 'AKIASANDBOXUPROOT001',
      date: '20260101',
      region: 'us-east-1',
      service: 'elasticloadbalancing',
    });
  });

  it('reads a presigned URL credential', () => {
    expect(parseCredentialScope(undefined, 'ASIA123/20260101/eu-west-1/sts/aws4_request')?.service).toBe(
      'sts',
    );
  });

  it('returns undefined for unsigned or malformed requests', () => {
    expect(parseCredentialScope(undefined)).toBeUndefined();
    expect(parseCredentialScope('Bearer token')).toBeUndefined();
  });
});
