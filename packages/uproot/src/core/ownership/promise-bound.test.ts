import { describe, expect, it } from 'vitest';
import { CCM, KCM, managerPod } from './ownership-test-support.js';
import { componentBounds, controllerBound, DEFAULT_PROMISE_BOUND, promiseBoundOf } from './promise-bound.js';

describe('the promise bound, from the managers\u2019 own flags', () => {
  it('is 15 s + 2 s + 3 s = 20 s with upstream\u2019s defaults', () => {
    expect(promiseBoundOf(['cloud-controller-manager', '--cloud-provider=aws'])).toMatchObject({
      leaseDurationSeconds: 15,
      retryPeriodSeconds: 2,
      startAllowanceSeconds: 3,
      seconds: 20,
    });
    expect(DEFAULT_PROMISE_BOUND.seconds).toBe(20);
  });

  it('reads Go durations in both flag forms', () => {
    const bound = promiseBoundOf([
      '--leader-elect-lease-duration=1m',
      '--leader-elect-retry-period',
      '2500ms',
    ]);
    expect(bound).toMatchObject({ leaseDurationSeconds: 60, retryPeriodSeconds: 2.5, seconds: 65.5 });
  });

  it('keeps the default for a value Go would refuse (the manager would not start with it)', () => {
    expect(promiseBoundOf(['--leader-elect-lease-duration=15']).leaseDurationSeconds).toBe(15);
    expect(promiseBoundOf(['--leader-elect-retry-period=-2s']).retryPeriodSeconds).toBe(2);
  });

  it('judges a controller by the widest bound of the managers that ran it', () => {
    const bounds = componentBounds({
      [KCM]: [managerPod(KCM, 'cp1', ['--leader-elect-lease-duration=30s'], { version: '1.27.3' })],
      [CCM]: [
        managerPod(CCM, 'cp1', [], { version: '1.27.3' }),
        managerPod(CCM, 'cp2', ['--leader-elect-retry-period=4s'], { version: '1.27.3' }),
      ],
    });
    expect(bounds[KCM].seconds).toBe(35);
    // Replicas may differ during a rollout: the widest one.
    expect(bounds[CCM].seconds).toBe(22);
    expect(controllerBound([CCM], bounds).seconds).toBe(22);
    expect(controllerBound([KCM, CCM], bounds).seconds).toBe(35);
  });

  it('uses the defaults for a manager with no pod to read (RKE\u2019s containers)', () => {
    const bounds = componentBounds({ [KCM]: [], [CCM]: [] });
    expect(bounds[KCM]).toEqual(DEFAULT_PROMISE_BOUND);
    expect(componentBounds(undefined)[CCM].basis).toBe('defaults');
  });
});
