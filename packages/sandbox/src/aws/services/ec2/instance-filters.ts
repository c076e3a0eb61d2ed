import type { FilterSchema } from '../../filters/filter-engine.js';
import type { AwsState } from '../../state/aws-state.js';
import { instanceStateCodes, type Ec2Instance } from '../../state/ec2-types.js';
import { publicDnsNameFor } from '../../state/ipv4.js';

const schemas = new WeakMap<AwsState, FilterSchema<Ec2Instance>>();

/** The DescribeInstances filters uproot and the CCM use, plus the common ones people script with. */
export function instanceFilterSchema(state: AwsState): FilterSchema<Ec2Instance> {
  let schema = schemas.get(state);
  if (!schema) schemas.set(state, (schema = buildSchema(state)));
  return schema;
}

function buildSchema(state: AwsState): FilterSchema<Ec2Instance> {
  const groupNames = (i: Ec2Instance): string[] =>
    i.securityGroupIds.map((id) => state.ec2.securityGroups.get(id)?.name ?? '');
  return {
    tags: (i) => i.tags,
    fields: {
      'instance-id': (i) => i.id,
      'private-dns-name': (i) => i.privateDnsName,
      'private-ip-address': (i) => i.privateIpAddress,
      'network-interface.addresses.private-ip-address': (i) => i.privateIpAddress,
      'network-interface.private-dns-name': (i) => i.privateDnsName,
      'ip-address': (i) => i.publicIpAddress,
      'dns-name': (i) => (i.publicIpAddress ? publicDnsNameFor(i.publicIpAddress, state.region) : undefined),
      'vpc-id': (i) => i.vpcId,
      'subnet-id': (i) => i.subnetId,
      'instance-state-name': (i) => i.state,
      'instance-state-code': (i) => String(instanceStateCodes[i.state]),
      'availability-zone': (i) => i.availabilityZone,
      'instance-type': (i) => i.instanceType,
      'image-id': (i) => i.imageId,
      'reservation-id': (i) => i.reservationId,
      'key-name': (i) => i.keyName,
      'owner-id': () => state.accountId,
      'launch-time': (i) => new Date(i.launchTime).toISOString(),
      'iam-instance-profile.arn': (i) => i.iamInstanceProfile?.arn,
      'iam-instance-profile.id': (i) => i.iamInstanceProfile?.id,
      'instance.group-id': (i) => i.securityGroupIds,
      'instance.group-name': groupNames,
      'group-id': (i) => i.securityGroupIds,
      'group-name': groupNames,
      'network-interface.mac-address': (i) => i.macAddress,
      'network-interface.network-interface-id': (i) => i.networkInterfaceId,
      'metadata-options.http-tokens': (i) => i.metadataOptions.httpTokens,
      'metadata-options.http-put-response-hop-limit': (i) =>
        String(i.metadataOptions.httpPutResponseHopLimit),
      'metadata-options.http-endpoint': (i) => i.metadataOptions.httpEndpoint,
      architecture: () => 'x86_64',
      hypervisor: () => 'xen',
      'virtualization-type': () => 'hvm',
      'root-device-type': () => 'ebs',
      tenancy: () => 'default',
    },
  };
}
