import { describe, expect, it } from 'vitest';
import { seededRandom } from 'uproot';
import { FaultInjector } from './fault-injector.js';

const call = { service: 'ec2' as const, action: 'DescribeInstances' };

describe('FaultInjector', () => {
  it('throttles with each service’s own code and status', () => {
    const faults = new FaultInjector(() => 0);
    faults.throttle();
    expect(faults.decide(call).error).toMatchObject({ code: 'RequestLimitExceeded', status: 503 });
    expect(faults.decide({ service: 'iam', action: 'GetRole' }).error).toMatchObject({
      code: 'Throttling',
      status: 400,
    });
  });

  it('fires "times" times and then retires', () => {
    const faults = new FaultInjector(() => 0);
    const handle = faults.fail({ action: 'DescribeInstances', code: 'InternalError', status: 500, times: 2 });
    expect(faults.decide(call).error?.code).toBe('InternalError');
    expect(faults.decide(call).error?.status).toBe(500);
    expect(faults.decide(call).error).toBeUndefined();
    expect(handle.fired).toBe(2);
    expect(faults.active).toHaveLength(0);
  });

  it('matches on service, action and caller', () => {
    const faults = new FaultInjector(() => 0);
    faults.throttle({ service: 'ec2', action: 'DescribeInstances', caller: 'arn:ccm' });
    expect(faults.decide({ ...call, caller: 'arn:kcm' }).error).toBeUndefined();
    expect(faults.decide({ ...call, action: 'DescribeVpcs', caller: 'arn:ccm' }).error).toBeUndefined();
    expect(faults.decide({ ...call, caller: 'arn:ccm' }).error).toBeDefined();
  });

  it('draws probabilities from the injected Random, so a seed reproduces the same pattern', () => {
    const pattern = (seed: number): boolean[] => {
      const faults = new FaultInjector(seededRandom(seed));
      faults.throttle({ probability: 0.3 });
      return Array.from({ length: 50 }, () => faults.decide(call).error !== undefined);
    };
    expect(pattern(7)).toEqual(pattern(7));
    const hits = pattern(7).filter(Boolean).length;
    expect(hits).toBeGreaterThan(5);
    expect(hits).toBeLessThan(30);
  });

  it('adds latency alongside errors and can be removed', () => {
    const faults = new FaultInjector(() => 0);
    const slow = faults.delay({ ms: 250 });
    faults.delay({ ms: 50, action: 'DescribeInstances' });
    expect(faults.decide(call)).toMatchObject({ latencyMs: 300, error: undefined });
    slow.remove();
    expect(faults.decide(call).latencyMs).toBe(50);
  });

  it('rejects nonsense probabilities', () => {
    expect(() => new FaultInjector(() => 0).throttle({ probability: 2 })).toThrow(RangeError);
  });
});
