import { describe, expect, it } from 'vitest';
import {
  formatMicroTime,
  leaseSpecToRecord,
  parseMicroTime,
  rawRecord,
  recordToLeaseSpec,
  type LeaderElectionRecord,
} from './lease-record.js';

const T = Date.UTC(2026, 2, 4, 5, 6, 7) + 890.123;

describe('record ↔ LeaseSpec (leaselock.go)', () => {
  const record: LeaderElectionRecord = {
    holderIdentity: 'cp-1_abc',
    leaseDurationSeconds: 15,
    acquireTime: T,
    renewTime: T + 2000,
    leaderTransitions: 3,
  };

  it('writes every field, MicroTime with microseconds, and no strategy or preferredHolder when empty', () => {
    expect(recordToLeaseSpec(record)).toEqual({
      holderIdentity: 'cp-1_abc',
      leaseDurationSeconds: 15,
      acquireTime: '2026-03-04T05:06:07.890123Z',
      renewTime: '2026-03-04T05:06:09.890123Z',
      leaseTransitions: 3,
    });
    expect(
      recordToLeaseSpec({ ...record, strategy: 'OldestEmulationVersion', preferredHolder: 'x' }),
    ).toMatchObject({
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'x',
    });
  });

  it('writes the holder even when empty (a released lease)', () => {
    expect(recordToLeaseSpec({ ...record, holderIdentity: '' }).holderIdentity).toBe('');
  });

  it('round-trips, and reads absent fields as zero values', () => {
    expect(leaseSpecToRecord(recordToLeaseSpec(record))).toEqual(record);
    expect(leaseSpecToRecord(undefined)).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: undefined,
      leaderTransitions: 0,
    });
  });

  it('raw record: json.Marshal order, one-second times truncated, null zero times', () => {
    expect(rawRecord(record)).toBe(
      '{"holderIdentity":"cp-1_abc","leaseDurationSeconds":15,"acquireTime":"2026-03-04T05:06:07Z",' +
        '"renewTime":"2026-03-04T05:06:09Z","leaderTransitions":3,"strategy":"","preferredHolder":""}',
    );
    expect(rawRecord({ ...record, renewTime: T + 2000 + 100 })).toBe(rawRecord(record)); // same second
    expect(rawRecord({ ...record, renewTime: T + 3000 })).not.toBe(rawRecord(record));
    expect(JSON.parse(rawRecord(leaseSpecToRecord({})))).toMatchObject({
      acquireTime: null,
      renewTime: null,
    });
  });

  it('parses RFC 3339 with any fraction and offsets, and Date objects', () => {
    expect(parseMicroTime('2026-03-04T05:06:07.890123Z')).toBeCloseTo(T, 3);
    expect(parseMicroTime('2026-03-04T05:06:07Z')).toBe(Date.UTC(2026, 2, 4, 5, 6, 7));
    expect(parseMicroTime('2026-03-04T07:06:07.5+02:00')).toBe(Date.UTC(2026, 2, 4, 5, 6, 7, 500));
    expect(parseMicroTime('2026-03-04T05:06:07.123456789Z')).toBeCloseTo(
      Date.UTC(2026, 2, 4, 5, 6, 7) + 123.456789,
      3,
    );
    expect(parseMicroTime(new Date(5))).toBe(5);
    expect(parseMicroTime(undefined)).toBeUndefined();
    expect(formatMicroTime(undefined)).toBeUndefined();
  });
});
