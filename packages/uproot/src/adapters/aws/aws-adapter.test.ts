import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { endpointFor } from './aws-clients.js';
import { awsFailureKind, awsFailureReason } from './aws-errors.js';
import { resolveRegion } from './region.js';
import { profileNameOf } from './iam-reader.js';
import { chunk, mapLimited } from './ec2-reader.js';
import { retryStrategy } from './retry-strategy.js';
import { PREFLIGHT_AWS_ACTIONS } from './preflight-actions.js';
import type { NodeFacts } from '../../core/model/snapshot.js';

const node = (labels: Record<string, string>, providerID?: string): NodeFacts => ({
  name: 'n',
  labels,
  annotations: {},
  taints: [],
  ...(providerID ? { providerID } : {}),
  kubeletVersion: 'v1.26.15',
  internalIPs: [],
  unschedulable: false,
});

describe('AWS adapter helpers', () => {
  it('picks endpoints the way the SDK does: per service, then global, unless ignored', () => {
    const env = {
      AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
      AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2: 'http://127.0.0.1:2',
    };
    expect(endpointFor('ec2', env)).toBe('http://127.0.0.1:1');
    expect(endpointFor('elbv2', env)).toBe('http://127.0.0.1:2');
    expect(endpointFor('ec2', { ...env, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' })).toBeUndefined();
  });

  it('resolves the region from --region, AWS_REGION, the node label, then a providerID zone', () => {
    expect(resolveRegion('eu-west-1', { AWS_REGION: 'us-east-1' }, [])).toEqual({
      region: 'eu-west-1',
      source: '--region',
    });
    expect(resolveRegion(undefined, { AWS_REGION: 'us-east-1' }, [])?.region).toBe('us-east-1');
    expect(
      resolveRegion(undefined, {}, [node({ 'topology.kubernetes.io/region': 'us-west-2' })])?.region,
    ).toBe('us-west-2');
    expect(resolveRegion(undefined, {}, [node({}, 'aws:///ap-south-1b/i-0123456789abcdef0')])?.region).toBe(
      'ap-south-1',
    );
    expect(resolveRegion(undefined, {}, [node({})])).toBeUndefined();
  });

  it.each([
    [
      { name: 'CredentialsProviderError', message: 'Could not load credentials from any providers' },
      'no-credentials',
      'no AWS credentials',
    ],
    [
      { name: 'AccessDenied', message: 'User is not authorized' },
      'access-denied',
      'AccessDenied on iam:GetInstanceProfile: User is not authorized',
    ],
    [
      { name: 'UnauthorizedOperation', message: 'no' },
      'access-denied',
      'UnauthorizedOperation on iam:GetInstanceProfile: no',
    ],
    [
      { name: 'RequestLimitExceeded', message: 'slow down', $metadata: { attempts: 3 } },
      'throttled',
      'throttled on iam:GetInstanceProfile (RequestLimitExceeded) after 3 attempts',
    ],
    [
      { name: 'AuthFailure', message: 'bad key' },
      'bad-credentials',
      'the AWS credentials were rejected on iam:GetInstanceProfile: AuthFailure',
    ],
  ])('classifies %j', (error, kind, reason) => {
    expect(awsFailureKind(error)).toBe(kind);
    expect(awsFailureReason(error, 'iam:GetInstanceProfile')).toContain(reason);
  });

  it('reads the profile name from an instance-profile ARN with a path', () => {
    expect(profileNameOf('arn:aws:iam::123456789012:instance-profile/k8s/prod-control-plane')).toBe(
      'prod-control-plane',
    );
  });

  it('batches 200 values per call and keeps at most `limit` calls in flight', async () => {
    expect(
      chunk(
        Array.from({ length: 401 }, (_, i) => i),
        200,
      ).map((c) => c.length),
    ).toEqual([200, 200, 1]);
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      peak = Math.max(peak, ++inFlight);
      await Promise.resolve();
      inFlight--;
      return n * 2;
    });
    expect(out).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(peak).toBe(3);
  });

  it('retries throttling up to maxAttempts with the given delay, never client errors', async () => {
    const strategy = retryStrategy(3, (n) => n * 10);
    const first = await strategy.acquireInitialRetryToken('x');
    const second = await strategy.refreshRetryTokenForRetry(first, { errorType: 'THROTTLING' });
    expect(second.getRetryDelay()).toBe(10);
    const third = await strategy.refreshRetryTokenForRetry(second, { errorType: 'TRANSIENT' });
    await expect(strategy.refreshRetryTokenForRetry(third, { errorType: 'THROTTLING' })).rejects.toThrow();
    await expect(strategy.refreshRetryTokenForRetry(first, { errorType: 'CLIENT_ERROR' })).rejects.toThrow();
  });

  it("docs/preflight.md's least-privilege policy lists exactly the actions preflight calls", () => {
    const doc = readFileSync(new URL('../../../../../docs/preflight.md', import.meta.url), 'utf8');
    const block = /"Sid": "UprootPreflight"[\s\S]*?"Action": (\[[\s\S]*?\])/.exec(doc);
    expect(block, 'the UprootPreflight statement in docs/preflight.md').not.toBeNull();
    expect(JSON.parse(block![1]!)).toEqual([...PREFLIGHT_AWS_ACTIONS]);
    expect(PREFLIGHT_AWS_ACTIONS).toEqual(
      expect.arrayContaining(['ec2:DescribeVpcs', 'ec2:DescribeDhcpOptions']),
    );
  });
});
