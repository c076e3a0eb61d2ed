import { describe, expect, it } from 'vitest';
import { decideLock, microTime } from './lock-decision.js';

const now = Date.UTC(2026, 0, 1, 0, 10);
const at = (secondsAgo: number) => microTime(now - secondsAgo * 1000);

describe('decideLock', () => {
  it.each([
    [undefined, { type: 'create' }],
    [{ holderIdentity: 'me', renewTime: at(1), leaseDurationSeconds: 60 }, { type: 'renew' }],
    [
      { holderIdentity: '', leaseTransitions: 2 },
      { type: 'take', transitions: 3 },
    ],
    [
      { holderIdentity: 'other', renewTime: at(61), leaseDurationSeconds: 60, leaseTransitions: 1 },
      { type: 'take', transitions: 2, previous: 'other', because: 'expired' },
    ],
    [
      { holderIdentity: 'other', renewTime: at(15), leaseDurationSeconds: 60 },
      { type: 'held', holder: 'other', ageSeconds: 15, expiresInSeconds: 45 },
    ],
    [{ holderIdentity: 'other' }, { type: 'take', transitions: 1, previous: 'other', because: 'expired' }],
  ] as const)('%j → %j', (lease, expected) => {
    expect(decideLock(lease, 'me', now)).toEqual(expected);
  });

  it('takes a fresh lease at once when its holder is known to be gone, and only then', () => {
    const fresh = {
      holderIdentity: 'other',
      renewTime: at(2),
      leaseDurationSeconds: 60,
      leaseTransitions: 4,
    };
    expect(decideLock(fresh, 'me', now, true)).toEqual({
      type: 'take',
      transitions: 5,
      previous: 'other',
      because: 'holder-gone',
    });
    expect(decideLock(fresh, 'me', now, false)).toMatchObject({ type: 'held', expiresInSeconds: 58 });
    expect(decideLock({ ...fresh, holderIdentity: 'me' }, 'me', now, true)).toEqual({ type: 'renew' });
  });

  it('writes MicroTime with microseconds', () => {
    expect(microTime(Date.UTC(2026, 0, 1, 1, 2, 3, 456))).toBe('2026-01-01T01:02:03.456000Z');
  });
});
