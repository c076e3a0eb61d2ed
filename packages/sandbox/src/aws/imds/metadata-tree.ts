import type { AwsState } from '../state/aws-state.js';
import type { Ec2Instance } from '../state/ec2-types.js';
import { publicDnsNameFor } from '../state/ipv4.js';

/** A metadata directory: leaves are text (computed on read, so credentials are issued only when asked for). */
export interface MetadataDirectory {
  readonly [name: string]: string | (() => string) | MetadataDirectory;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The `/latest/` tree IMDS serves for one instance. */
export function metadataTree(state: AwsState, instance: Ec2Instance): MetadataDirectory {
  const subnet = state.ec2.network.subnet(instance.subnetId);
  const vpc = state.ec2.network.vpc(instance.vpcId);
  const groups = instance.securityGroupIds.map((id) => state.ec2.securityGroups.get(id));
  const groupNames = groups.map((g) => g?.name ?? '').join('\n');
  const localHostname = instance.localHostname ?? instance.privateDnsName;
  const hostname = instance.hostname ?? instance.localHostname ?? instance.privateDnsName;
  const macDirectory: MetadataDirectory = {
    'device-number': '0',
    'interface-id': instance.networkInterfaceId,
    'local-hostname': localHostname,
    'local-ipv4s': instance.privateIpAddress,
    mac: instance.macAddress,
    'owner-id': state.accountId,
    'security-group-ids': instance.securityGroupIds.join('\n'),
    'security-groups': groupNames,
    'subnet-id': instance.subnetId,
    'subnet-ipv4-cidr-block': subnet?.cidrBlock ?? '',
    'vpc-id': instance.vpcId,
    'vpc-ipv4-cidr-block': vpc?.cidrBlock ?? '',
    'vpc-ipv4-cidr-blocks': vpc?.cidrBlock ?? '',
    ...(instance.publicIpAddress
      ? {
          'public-ipv4s': instance.publicIpAddress,
          'public-hostname': publicDnsNameFor(instance.publicIpAddress, state.region),
        }
      : {}),
  };
  const metaData: Record<string, string | (() => string) | MetadataDirectory> = {
    'ami-id': instance.imageId,
    'ami-launch-index': String(instance.amiLaunchIndex),
    'ami-manifest-path': '(unknown)',
    hostname,
    'instance-action': 'none',
    'instance-id': instance.id,
    'instance-life-cycle': 'on-demand',
    'instance-type': instance.instanceType,
    'local-hostname': localHostname,
    'local-ipv4': instance.privateIpAddress,
    mac: instance.macAddress,
    network: { interfaces: { macs: { [instance.macAddress]: macDirectory } } },
    placement: {
      'availability-zone': instance.availabilityZone,
      'availability-zone-id': subnet?.availabilityZoneId ?? '',
      region: state.region,
    },
    'reservation-id': instance.reservationId,
    'security-groups': groupNames,
    services: { domain: 'amazonaws.com', partition: 'aws' },
  };
  if (instance.publicIpAddress) {
    metaData['public-ipv4'] = instance.publicIpAddress;
    metaData['public-hostname'] = publicDnsNameFor(instance.publicIpAddress, state.region);
  }
  const profile = instance.iamInstanceProfile;
  if (profile) {
    const roleName = state.instanceRoleName(instance.id);
    const credentialsDir: Record<string, () => string> = {};
    if (roleName !== undefined) {
      credentialsDir[roleName] = () => {
        const c = state.credentialsFor({ type: 'instance', instanceId: instance.id });
        return JSON.stringify(
          {
            Code: 'Success',
            LastUpdated: iso(state.now()),
            Type: 'AWS-HMAC',
            AccessKeyId: c.accessKeyId,
            SecretAccessKey: c.secretAccessKey,
            Token: c.sessionToken,
            Expiration: iso(c.expiration?.getTime() ?? state.now()),
          },
          null,
          2,
        );
      };
    }
    metaData.iam = {
      info: () =>
        JSON.stringify(
          {
            Code: 'Success',
            LastUpdated: iso(state.now()),
            InstanceProfileArn: profile.arn,
            InstanceProfileId: profile.id,
          },
          null,
          2,
        ),
      'security-credentials': credentialsDir,
    };
  }
  const identity = (): string =>
    JSON.stringify(
      {
        accountId: state.accountId,
        architecture: 'x86_64',
        availabilityZone: instance.availabilityZone,
        billingProducts: null,
        devpayProductCodes: null,
        marketplaceProductCodes: null,
        imageId: instance.imageId,
        instanceId: instance.id,
        instanceType: instance.instanceType,
        kernelId: null,
        pendingTime: iso(instance.launchTime),
        privateIp: instance.privateIpAddress,
        ramdiskId: null,
        region: state.region,
        version: '2017-09-30',
      },
      null,
      2,
    );
  return {
    'meta-data': metaData,
    dynamic: { 'instance-identity': { document: identity } },
  };
}

/** Resolves a path within the tree: text for a leaf, a listing for a directory, undefined when absent. */
export function lookupMetadata(tree: MetadataDirectory, path: string): string | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  let node: string | (() => string) | MetadataDirectory = tree;
  for (const part of parts) {
    if (typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as MetadataDirectory)[part]!;
  }
  if (typeof node === 'string') return node;
  if (typeof node === 'function') return node();
  // An empty directory (no role on the profile) is absent, as on EC2.
  if (Object.keys(node).length === 0) return undefined;
  return Object.entries(node)
    .map(([name, child]) => (typeof child === 'object' ? `${name}/` : name))
    .join('\n');
}
