import { describe, expect, it } from 'vitest';
import { formatProviderId, instanceIdFromNodeName, parseProviderId, regionOfZone } from './provider-id.js';

describe('provider IDs', () => {
  it('formats aws:///<az>/<id> and reads it back', () => {
    const id = formatProviderId('us-east-1a', 'i-0123456789abcdef0');
    expect(id).toBe('aws:///us-east-1a/i-0123456789abcdef0');
    expect(parseProviderId(id)).toEqual({ ok: true, instanceId: 'i-0123456789abcdef0', zone: 'us-east-1a' });
  });

  it.each([
    ['aws:////i-0abc', 'i-0abc', undefined],
    ['i-0abc', 'i-0abc', undefined],
  ])('accepts %s', (input, instanceId, zone) => {
    expect(parseProviderId(input)).toEqual({ ok: true, instanceId, zone });
  });

  it.each(['gce://p/z/n', 'aws://us-east-1a/i-1', 'aws:///us-east-1a/', ''])(
    'rejects %j like upstream',
    (input) => {
      const parsed = parseProviderId(input);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toBe(`Invalid format for AWS instance (${input})`);
    },
  );
});

describe('node names', () => {
  it('takes the text before the first dot of resource-based names', () => {
    expect(instanceIdFromNodeName('i-0123456789abcdef0')).toBe('i-0123456789abcdef0');
    expect(instanceIdFromNodeName('i-0123456789abcdef0.us-west-2.compute.internal')).toBe(
      'i-0123456789abcdef0',
    );
    expect(instanceIdFromNodeName('i-01bc.aws.example.com')).toBe('i-01bc');
  });

  it('leaves IP-based names to the private-dns-name lookup', () => {
    expect(instanceIdFromNodeName('ip-10-0-1-5.ec2.internal')).toBeUndefined();
    expect(instanceIdFromNodeName('node-1')).toBeUndefined();
  });

  it('derives the region from a zone', () => {
    expect(regionOfZone('us-east-1a')).toBe('us-east-1');
    expect(regionOfZone('eu-west-3c')).toBe('eu-west-3');
  });
});
