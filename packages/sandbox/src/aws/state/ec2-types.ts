import type { InstanceStateName } from '../seed/seed-schema.js';

/** The EC2 resources the emulator keeps. Fields are read-only to callers; change them through the stores. */
export type TagMap = Map<string, string>;

/** EC2 tags as callers see them: change them with `createTags`/`deleteTags` so cached responses stay true. */
export type Ec2Tags = ReadonlyMap<string, string>;

export interface Vpc {
  readonly id: string;
  readonly seq: number;
  readonly cidrBlock: string;
  readonly isDefault: boolean;
  /** The VPC's DHCP options set, or `default` when it has none (EC2's word for "no DHCP options"). */
  readonly dhcpOptionsId: string;
  readonly tags: Ec2Tags;
}

/** One DHCP option (`domain-name`, `domain-name-servers`, `ntp-servers`, ...) and its values. */
export interface DhcpConfiguration {
  readonly key: string;
  readonly values: readonly string[];
}

/** A DHCP options set: the domain the VPC's instances get, which their hostnames and IMDS names carry. */
export interface DhcpOptions {
  readonly id: string;
  readonly seq: number;
  readonly configurations: readonly DhcpConfiguration[];
  readonly tags: Ec2Tags;
}

export interface Subnet {
  readonly id: string;
  readonly seq: number;
  readonly vpcId: string;
  readonly cidrBlock: string;
  readonly availabilityZone: string;
  readonly availabilityZoneId: string;
  readonly mapPublicIpOnLaunch: boolean;
  readonly tags: Ec2Tags;
}

export interface Route {
  readonly destinationCidrBlock: string;
  readonly gatewayId?: string | undefined;
  readonly instanceId?: string | undefined;
  readonly natGatewayId?: string | undefined;
  readonly state: 'active' | 'blackhole';
  readonly origin: 'CreateRouteTable' | 'CreateRoute';
}

export interface RouteTable {
  readonly id: string;
  readonly seq: number;
  readonly vpcId: string;
  readonly main: boolean;
  readonly subnetIds: readonly string[];
  readonly routes: readonly Route[];
  readonly tags: Ec2Tags;
}

/** One rule, stored flat (AWS's security group rule model); rendered grouped as IpPermissions. */
export interface SecurityGroupRule {
  readonly id: string;
  readonly isEgress: boolean;
  /** Normalised: `tcp`, `udp`, `icmp` or `-1`. */
  readonly protocol: string;
  readonly fromPort?: number | undefined;
  readonly toPort?: number | undefined;
  readonly cidrIpv4?: string | undefined;
  readonly cidrIpv6?: string | undefined;
  readonly referencedGroupId?: string | undefined;
  readonly description?: string | undefined;
}

export interface SecurityGroup {
  readonly id: string;
  readonly seq: number;
  readonly name: string;
  readonly description: string;
  readonly vpcId: string;
  readonly rules: readonly SecurityGroupRule[];
  readonly tags: Ec2Tags;
}

export interface InstanceProfileRef {
  readonly name: string;
  readonly arn: string;
  readonly id: string;
}

/**
 * An instance's metadata options (EC2 API InstanceMetadataOptionsResponse). `httpTokens: required` refuses
 * IMDSv1 GETs; `httpPutResponseHopLimit` is the IP TTL of the token PUT's response, so a process one hop
 * further away (a container on a bridge or pod network) gets its token only with a limit of 2 or more.
 */
export interface InstanceMetadataOptions {
  readonly httpTokens: 'optional' | 'required';
  /** 1..64. */
  readonly httpPutResponseHopLimit: number;
  readonly httpEndpoint: 'enabled' | 'disabled';
}

export interface Ec2Instance {
  readonly id: string;
  readonly seq: number;
  readonly reservationId: string;
  readonly imageId: string;
  readonly instanceType: string;
  readonly state: InstanceStateName;
  /** Clock time of the last state change. */
  readonly stateChangedAt: number;
  readonly stateTransitionReason: string;
  readonly privateIpAddress: string;
  readonly privateDnsName: string;
  readonly publicIpAddress?: string | undefined;
  readonly subnetId: string;
  readonly vpcId: string;
  readonly availabilityZone: string;
  readonly securityGroupIds: readonly string[];
  readonly iamInstanceProfile?: InstanceProfileRef | undefined;
  /** What IMDS reports as `hostname` / `local-hostname` (custom DHCP domains); the private DNS name when unset. */
  readonly hostname?: string | undefined;
  readonly localHostname?: string | undefined;
  readonly macAddress: string;
  readonly networkInterfaceId: string;
  readonly networkAttachmentId: string;
  readonly launchTime: number;
  readonly keyName?: string | undefined;
  readonly amiLaunchIndex: number;
  readonly metadataOptions: InstanceMetadataOptions;
  readonly tags: Ec2Tags;
}

/** EC2's numeric state codes. */
export const instanceStateCodes: Readonly<Record<InstanceStateName, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
