import { describe, expect, it } from 'vitest';
import { nodeNameLookup, parseProviderId } from './provider-id.js';

describe('parseProviderId (cloud-provider-aws accepted forms)', () => {
  it.each([
    [
      'aws:///us-east-1a/i-0123456789abcdef0',
      { kind: 'instance', instanceId: 'i-0123456789abcdef0', zone: 'us-east-1a', canonical: true },
    ],
    [
      'aws:////i-0123456789abcdef0',
      { kind: 'instance', instanceId: 'i-0123456789abcdef0', canonical: false },
    ],
    ['i-0123abcd', { kind: 'instance', instanceId: 'i-0123abcd', canonical: false }],
    ['aws:///us-east-1a/fargate-10.0.1.2', { kind: 'fargate', zone: 'us-east-1a', ip: '10.0.1.2' }],
    ['rke2://node-1', { kind: 'invalid', reason: 'scheme "rke2://" is not "aws://"' }],
    [
      'aws://us-east-1a/i-0123456789abcdef0',
      { kind: 'invalid', reason: 'expected aws:///<zone>/<instance-id>' },
    ],
    ['aws:///us-east-1a/node-1', { kind: 'invalid', reason: '"node-1" is not an instance id' }],
    ['ip-10-0-1-2', { kind: 'invalid', reason: 'not a URL and not an instance id' }],
  ])('%s', (input, expected) => {
    expect(parseProviderId(input)).toEqual(expected);
  });
});

describe('nodeNameLookup (how the CCM looks a node up)', () => {
  it.each([
    [
      'ip-10-0-1-2.ec2.internal',
      { by: 'private-dns-name', name: 'ip-10-0-1-2.ec2.internal', shape: 'aws-dns' },
    ],
    [
      'ip-10-0-1-2.eu-west-1.compute.internal',
      { by: 'private-dns-name', name: 'ip-10-0-1-2.eu-west-1.compute.internal', shape: 'aws-dns' },
    ],
    ['ip-10-0-1-2', { by: 'private-dns-name', name: 'ip-10-0-1-2', shape: 'short' }],
    [
      'node1.corp.example.com',
      { by: 'private-dns-name', name: 'node1.corp.example.com', shape: 'custom-domain' },
    ],
    ['i-0123456789abcdef0', { by: 'instance-id', instanceId: 'i-0123456789abcdef0', customDomain: false }],
    [
      'i-0123456789abcdef0.us-east-2.compute.internal',
      { by: 'instance-id', instanceId: 'i-0123456789abcdef0', customDomain: false },
    ],
    [
      'i-0123456789abcdef0.aws.example.com',
      { by: 'instance-id', instanceId: 'i-0123456789abcdef0', customDomain: true },
    ],
  ])('%s', (name, expected) => {
    expect(nodeNameLookup(name)).toEqual(expected);
  });
});
