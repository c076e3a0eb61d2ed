import { describe, expect, it } from 'vitest';
import { AwsApiError } from './aws-api-error.js';
import { QueryInput } from './query-input.js';

describe('QueryInput', () => {
  it('decodes form encoding, including + and percent escapes', () => {
    const input = QueryInput.parse('Action=CreateRole&AssumeRolePolicyDocument=%7B%22a%22%3A+1%7D');
    expect(input.string('Action')).toBe('CreateRole');
    expect(input.string('AssumeRolePolicyDocument')).toBe('{"a": 1}');
  });

  it('reads EC2 lists in numeric (not lexical) index order', () => {
    const body = Array.from({ length: 12 }, (_, i) => `InstanceId.${12 - i}=i-${12 - i}`).join('&');
    expect(QueryInput.parse(body).list('InstanceId', 'ec2')).toEqual(
      Array.from({ length: 12 }, (_, i) => `i-${i + 1}`),
    );
  });

  it('reads member lists and nested structures', () => {
    const input = QueryInput.parse(
      'Listeners.member.1.Protocol=TCP&Listeners.member.1.LoadBalancerPort=80&Listeners.member.2.Protocol=HTTP&Subnets.member.1=s-1',
    );
    const listeners = input.structs('Listeners', 'member');
    expect(listeners.map((l) => [l.string('Protocol'), l.int('LoadBalancerPort')])).toEqual([
      ['TCP', 80],
      ['HTTP', undefined],
    ]);
    expect(input.list('Subnets', 'member')).toEqual(['s-1']);
  });

  it('scopes nested views (IpPermissions.1.IpRanges.2.CidrIp)', () => {
    const input = QueryInput.parse(
      'IpPermissions.1.IpRanges.1.CidrIp=10.0.0.0/8&IpPermissions.1.IpRanges.2.CidrIp=0.0.0.0/0',
    );
    const [permission] = input.structs('IpPermissions', 'ec2');
    expect(permission!.structs('IpRanges', 'ec2').map((r) => r.string('CidrIp'))).toEqual([
      '10.0.0.0/8',
      '0.0.0.0/0',
    ]);
  });

  it('keeps scalar list entries apart from structure entries', () => {
    const input = QueryInput.parse('Filter.1.Name=x&Filter.1.Value.1=y');
    expect(input.list('Filter', 'ec2')).toEqual([]);
    expect(input.structs('Filter', 'ec2')).toHaveLength(1);
  });

  it('returns undefined for an absent structure and reports presence', () => {
    const input = QueryInput.parse('HealthCheck.Target=TCP%3A80');
    expect(input.struct('HealthCheck')?.string('Target')).toBe('TCP:80');
    expect(input.struct('Other')).toBeUndefined();
    expect(input.has('HealthCheck')).toBe(true);
  });

  it('merges the URL query string under the body', () => {
    const input = QueryInput.parse('Version=2016-11-15', 'Action=DescribeVpcs&Version=old');
    expect(input.string('Action')).toBe('DescribeVpcs');
    expect(input.string('Version')).toBe('2016-11-15');
  });

  it('rejects a non-integer and a non-boolean with InvalidParameterValue', () => {
    const input = QueryInput.parse('MaxResults=ten&DryRun=yes');
    expect(() => input.int('MaxResults')).toThrow(AwsApiError);
    expect(() => input.bool('DryRun')).toThrow(/expected true or false/);
  });

  it('names the missing parameter', () => {
    expect(() => QueryInput.parse('').requiredString('RoleName')).toThrow(
      'The request must contain the parameter RoleName',
    );
  });
});
