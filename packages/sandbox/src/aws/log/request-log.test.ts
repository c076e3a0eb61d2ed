import { describe, expect, it } from 'vitest';
import { RequestLog } from './request-log.js';

const entry = (service: 'ec2' | 'iam', action: string, caller?: string, errorCode?: string) => ({
  at: 0,
  service,
  action,
  caller,
  status: errorCode ? 400 : 200,
  errorCode,
});

describe('RequestLog', () => {
  it('counts per service and action, and per caller', () => {
    const log = new RequestLog();
    log.record(entry('ec2', 'DescribeInstances', 'arn:a'));
    log.record(entry('ec2', 'DescribeInstances', 'arn:b'));
    log.record(entry('iam', 'GetRole', 'arn:a'));
    expect(log.count({ service: 'ec2', action: 'DescribeInstances' })).toBe(2);
    expect(log.count({ caller: 'arn:a' })).toBe(2);
    expect(log.count({ caller: 'arn:a', service: 'ec2' })).toBe(1);
    expect(log.counters()).toEqual({ 'ec2:DescribeInstances': 2, 'iam:GetRole': 1 });
    expect(log.countersByCaller()['arn:b']).toEqual({ 'ec2:DescribeInstances': 1 });
  });

  it('counts errors by code', () => {
    const log = new RequestLog();
    log.record(entry('ec2', 'DescribeInstances', 'arn:a', 'RequestLimitExceeded'));
    log.record(entry('ec2', 'DescribeInstances', 'arn:a'));
    expect(log.count({ errorCode: 'RequestLimitExceeded' })).toBe(1);
    expect(log.count({ action: 'DescribeInstances', errorCode: 'RequestLimitExceeded' })).toBe(1);
  });

  it('keeps only the newest entries but exact counters', () => {
    const log = new RequestLog(3);
    for (let i = 0; i < 5; i++) log.record(entry('ec2', `A${i}`));
    expect(log.entries().map((e) => e.action)).toEqual(['A2', 'A3', 'A4']);
    expect(log.count()).toBe(5);
    expect(log.total).toBe(5);
  });

  it('resets everything', () => {
    const log = new RequestLog();
    log.record(entry('ec2', 'DescribeInstances'));
    log.reset();
    expect(log.count()).toBe(0);
    expect(log.entries()).toEqual([]);
    expect(log.record(entry('ec2', 'X')).seq).toBe(1);
  });
});
