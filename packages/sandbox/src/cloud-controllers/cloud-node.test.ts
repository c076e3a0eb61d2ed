import { describe, expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import { addressesDiffer, applyInstanceMetadata } from './cloud-node.js';
import { instanceMetadata } from './aws-cloud.js';

const metadata = instanceMetadata(
  {
    InstanceId: 'i-1',
    InstanceType: 'm5.large',
    Placement: { AvailabilityZone: 'us-east-1b' },
    PrivateIpAddress: '10.0.1.5',
    PrivateDnsName: 'ip-10-0-1-5.ec2.internal',
  },
  'aws:///us-east-1b/i-1',
);

describe('cloud-node initialization', () => {
  it('sets providerID, labels (GA and beta) and removes only the uninitialized taint', () => {
    const node: V1Node = {
      metadata: { name: 'ip-10-0-1-5.ec2.internal', labels: { keep: 'me' } },
      spec: {
        taints: [
          { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
          { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
        ],
      },
    };
    const out = applyInstanceMetadata(node, metadata);
    expect(out.spec?.providerID).toBe('aws:///us-east-1b/i-1');
    expect(out.metadata?.labels).toEqual({
      keep: 'me',
      'topology.kubernetes.io/zone': 'us-east-1b',
      'failure-domain.beta.kubernetes.io/zone': 'us-east-1b',
      'topology.kubernetes.io/region': 'us-east-1',
      'failure-domain.beta.kubernetes.io/region': 'us-east-1',
      'node.kubernetes.io/instance-type': 'm5.large',
      'beta.kubernetes.io/instance-type': 'm5.large',
    });
    expect(out.spec?.taints?.map((t) => t.key)).toEqual(['node-role.kubernetes.io/control-plane']);
    expect(node.spec?.taints).toHaveLength(2);
  });

  it('never overwrites an existing providerID', () => {
    const node: V1Node = { metadata: { name: 'n' }, spec: { providerID: 'aws:////i-kept' } };
    expect(applyInstanceMetadata(node, metadata).spec?.providerID).toBe('aws:////i-kept');
  });

  it('reports InternalIP, InternalDNS and Hostname, and notices address changes', () => {
    expect(metadata.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.1.5' },
      { type: 'InternalDNS', address: 'ip-10-0-1-5.ec2.internal' },
      { type: 'Hostname', address: 'ip-10-0-1-5.ec2.internal' },
    ]);
    expect(addressesDiffer(metadata.addresses, metadata.addresses)).toBe(false);
    expect(addressesDiffer([{ type: 'InternalIP', address: '10.0.1.6' }], metadata.addresses)).toBe(true);
  });
});
