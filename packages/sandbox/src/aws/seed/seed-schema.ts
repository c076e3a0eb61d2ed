import { z } from 'zod';

/**
 * The seed: one simulated AWS account described as plain data (a scenario file or a test's object literal).
 * Ids are optional: give them when other entries refer to a resource, otherwise they are generated
 * deterministically. Objects are strict, so a misspelt field is reported instead of ignored.
 */
const tags = z.record(z.string().min(1).max(128), z.string().max(256)).default({});

const cidr = z
  .string()
  .regex(
    /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d|[12]\d|3[0-2])$/,
    'must be an IPv4 CIDR such as 10.0.0.0/16',
  );
const ipv4 = z
  .string()
  .regex(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/, 'must be an IPv4 address such as 10.0.1.23');
const awsId = (prefix: string) =>
  z
    .string()
    .regex(
      new RegExp(`^${prefix}-([0-9a-f]{8}|[0-9a-f]{17})$`),
      `must look like ${prefix}- followed by 8 or 17 hex digits`,
    );
const name = z.string().min(1).max(128);

/** A policy document as JSON text or as an object (stored as its JSON text). */
const policyDocument = z.union([z.string().min(2), z.record(z.string(), z.unknown())]);

const ipPermission = z
  .object({
    /** `tcp`, `udp`, `icmp` or `-1` (all). */
    protocol: z.string().default('tcp'),
    fromPort: z.number().int().min(-1).max(65535).optional(),
    toPort: z.number().int().min(-1).max(65535).optional(),
    cidrs: z.array(cidr).default([]),
    ipv6Cidrs: z.array(z.string()).default([]),
    sourceGroupIds: z.array(awsId('sg')).default([]),
    description: z.string().optional(),
  })
  .strict();

/**
 * A DHCP options set. Its `domainName` is the domain the VPC's instances get: their OS hostname and instance
 * metadata's `hostname`/`local-hostname` end in it, while EC2's private DNS name keeps the region's domain.
 */
const dhcpOptions = z
  .object({
    id: awsId('dopt').optional(),
    /** `domain-name`; omit it for a set without a domain (short hostnames). */
    domainName: z
      .string()
      .regex(
        /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?( [a-z0-9]([-a-z0-9.]*[a-z0-9])?)*$/,
        'must be DNS domains separated by spaces, such as corp.example.com',
      )
      .optional(),
    domainNameServers: z.array(z.string().min(1)).max(4).default(['AmazonProvidedDNS']),
    ntpServers: z.array(ipv4).max(4).default([]),
    tags,
  })
  .strict();

const vpc = z
  .object({
    id: awsId('vpc').optional(),
    cidrBlock: cidr,
    isDefault: z.boolean().default(false),
    /** A set declared in `dhcpOptions`, or `default` for none; the account's default set when omitted. */
    dhcpOptionsId: z.union([awsId('dopt'), z.literal('default')]).optional(),
    tags,
  })
  .strict();

const subnet = z
  .object({
    id: awsId('subnet').optional(),
    vpcId: awsId('vpc').optional(),
    cidrBlock: cidr,
    availabilityZone: z.string().min(1),
    mapPublicIpOnLaunch: z.boolean().default(false),
    tags,
  })
  .strict();

const route = z
  .object({
    destinationCidrBlock: cidr,
    gatewayId: z.string().optional(),
    instanceId: awsId('i').optional(),
    natGatewayId: z.string().optional(),
    state: z.enum(['active', 'blackhole']).default('active'),
  })
  .strict();

const routeTable = z
  .object({
    id: awsId('rtb').optional(),
    vpcId: awsId('vpc').optional(),
    main: z.boolean().default(false),
    subnetIds: z.array(awsId('subnet')).default([]),
    routes: z.array(route).default([]),
    tags,
  })
  .strict();

const securityGroup = z
  .object({
    id: awsId('sg').optional(),
    name,
    description: z.string().default('managed by uproot sandbox'),
    vpcId: awsId('vpc').optional(),
    ingress: z.array(ipPermission).default([]),
    /** Outbound rules; AWS's default allow-all rule when omitted. */
    egress: z.array(ipPermission).optional(),
    tags,
  })
  .strict();

export const instanceStateNames = [
  'pending',
  'running',
  'stopping',
  'stopped',
  'shutting-down',
  'terminated',
] as const;

/**
 * EC2's instance metadata options (RunInstances MetadataOptions). Omitted fields take EC2's defaults for an
 * AMI without ImdsSupport v2.0: tokens optional, hop limit 1, endpoint enabled.
 */
const metadataOptions = z
  .object({
    httpTokens: z.enum(['optional', 'required']).optional(),
    httpPutResponseHopLimit: z.number().int().min(1).max(64).optional(),
    httpEndpoint: z.enum(['enabled', 'disabled']).optional(),
  })
  .strict();

const instance = z
  .object({
    id: awsId('i').optional(),
    /** Allocated from the subnet's CIDR when omitted. */
    privateIpAddress: ipv4.optional(),
    /** `ip-10-0-1-23.ec2.internal` (us-east-1) or `ip-….<region>.compute.internal` when omitted. */
    privateDnsName: z.string().min(1).optional(),
    publicIpAddress: ipv4.optional(),
    /** The first subnet in `availabilityZone` (or the first subnet) when omitted. */
    subnetId: awsId('subnet').optional(),
    availabilityZone: z.string().min(1).optional(),
    instanceType: z.string().default('m5.large'),
    imageId: z.string().default('ami-0c7217cdde317cfec'),
    state: z.enum(instanceStateNames).default('running'),
    /** Milliseconds since the epoch or an ISO date; the clock's now when omitted. */
    launchTime: z.union([z.number(), z.iso.datetime()]).optional(),
    keyName: z.string().optional(),
    /** The VPC's first security group when omitted. */
    securityGroupIds: z.array(awsId('sg')).optional(),
    /** Instance profile name. */
    iamInstanceProfile: name.optional(),
    /** IMDS `hostname` / `local-hostname` when the OS sees a custom DHCP domain; the private DNS name when omitted. */
    hostname: z.string().min(1).optional(),
    localHostname: z.string().min(1).optional(),
    macAddress: z
      .string()
      .regex(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/)
      .optional(),
    metadataOptions: metadataOptions.optional(),
    tags,
  })
  .strict();

const managedPolicy = z
  .object({
    name,
    /** Defaults to `arn:aws:iam::<account>:policy<path><name>`; give `arn:aws:iam::aws:policy/…` for AWS-managed ones. */
    arn: z.string().startsWith('arn:').optional(),
    path: z.string().default('/'),
    description: z.string().optional(),
    document: policyDocument,
  })
  .strict();

const role = z
  .object({
    name,
    path: z.string().default('/'),
    description: z.string().optional(),
    /** The EC2 trust policy when omitted. */
    assumeRolePolicyDocument: policyDocument.optional(),
    /** Managed policy names (declared in `managedPolicies`) or ARNs. */
    attachedPolicies: z.array(z.string().min(1)).default([]),
    inlinePolicies: z.record(name, policyDocument).default({}),
    tags,
  })
  .strict();

const instanceProfile = z
  .object({ name, path: z.string().default('/'), roles: z.array(name).max(1).default([]), tags })
  .strict();

const classicListener = z
  .object({
    protocol: z.string().default('TCP'),
    loadBalancerPort: z.number().int().min(1).max(65535),
    instanceProtocol: z.string().optional(),
    instancePort: z.number().int().min(1).max(65535),
  })
  .strict();

/** The DNS name an account recorded by `uproot snapshot` had; generated from the name when omitted. */
const lbDnsName = z
  .string()
  .regex(/^[a-z0-9][-a-z0-9.]*[a-z0-9]$/, 'must be a DNS name')
  .optional();

const classicLoadBalancer = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, 'must be 1-32 letters, digits or hyphens'),
    dnsName: lbDnsName,
    scheme: z.enum(['internet-facing', 'internal']).default('internet-facing'),
    listeners: z.array(classicListener).default([]),
    subnetIds: z.array(awsId('subnet')).default([]),
    securityGroupIds: z.array(awsId('sg')).default([]),
    instanceIds: z.array(awsId('i')).default([]),
    tags,
  })
  .strict();

const targetGroup = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, 'must be 1-32 letters, digits or hyphens'),
    protocol: z.string().default('TCP'),
    port: z.number().int().min(1).max(65535),
    vpcId: awsId('vpc').optional(),
    targetType: z.enum(['instance', 'ip']).default('instance'),
    targets: z
      .array(
        z.object({ id: z.string().min(1), port: z.number().int().min(1).max(65535).optional() }).strict(),
      )
      .default([]),
    tags,
  })
  .strict();

const loadBalancerV2 = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, 'must be 1-32 letters, digits or hyphens'),
    dnsName: lbDnsName,
    type: z.enum(['network', 'application']).default('network'),
    scheme: z.enum(['internet-facing', 'internal']).default('internet-facing'),
    subnetIds: z.array(awsId('subnet')).default([]),
    securityGroupIds: z.array(awsId('sg')).default([]),
    listeners: z
      .array(
        z
          .object({
            port: z.number().int().min(1).max(65535),
            protocol: z.string().default('TCP'),
            targetGroup: z.string(),
          })
          .strict(),
      )
      .default([]),
    tags,
  })
  .strict();

const autoScalingGroup = z
  .object({
    name,
    minSize: z.number().int().min(0).default(0),
    maxSize: z.number().int().min(0).default(10),
    desiredCapacity: z.number().int().min(0).optional(),
    instanceIds: z.array(awsId('i')).default([]),
    availabilityZones: z.array(z.string()).optional(),
    subnetIds: z.array(awsId('subnet')).default([]),
    launchTemplate: z
      .object({ name: z.string(), version: z.string().default('$Default') })
      .strict()
      .optional(),
    loadBalancerNames: z.array(z.string()).default([]),
    targetGroupNames: z.array(z.string()).default([]),
    tags: z
      .array(
        z
          .object({
            key: z.string().min(1),
            value: z.string().default(''),
            propagateAtLaunch: z.boolean().default(true),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

const principal = z.discriminatedUnion('type', [
  z.object({ type: z.literal('admin') }).strict(),
  z.object({ type: z.literal('role'), roleName: name, sessionName: z.string().optional() }).strict(),
]);

const accessKey = z
  .object({
    accessKeyId: z.string().regex(/^[A-Z0-9]{16,128}$/, 'must be 16-128 upper-case letters or digits'),
    secretAccessKey: z.string().min(1),
    principal,
  })
  .strict();

export const awsSeedSchema = z
  .object({
    accountId: z
      .string()
      .regex(/^\d{12}$/, 'must be 12 digits')
      .default('123456789012'),
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a region such as us-east-1')
      .default('us-east-1'),
    /** Check every signed call against the caller's IAM policies. */
    enforceIam: z.boolean().default(false),
    /** The name of the user behind the built-in admin key. */
    adminUserName: name.default('sandbox-admin'),
    dhcpOptions: z.array(dhcpOptions).default([]),
    vpcs: z.array(vpc).default([]),
    subnets: z.array(subnet).default([]),
    routeTables: z.array(routeTable).default([]),
    securityGroups: z.array(securityGroup).default([]),
    instances: z.array(instance).default([]),
    managedPolicies: z.array(managedPolicy).default([]),
    roles: z.array(role).default([]),
    instanceProfiles: z.array(instanceProfile).default([]),
    classicLoadBalancers: z.array(classicLoadBalancer).default([]),
    targetGroups: z.array(targetGroup).default([]),
    loadBalancers: z.array(loadBalancerV2).default([]),
    autoScalingGroups: z.array(autoScalingGroup).default([]),
    accessKeys: z.array(accessKey).default([]),
  })
  .strict();

/** What a person or test writes (defaults optional). */
export type AwsSeed = z.input<typeof awsSeedSchema>;
/** The seed after validation, with defaults filled in. */
export type ParsedAwsSeed = z.output<typeof awsSeedSchema>;
export type SeedInstance = z.output<typeof instance>;
export type SeedIpPermission = z.output<typeof ipPermission>;
export type SeedPolicyDocument = z.output<typeof policyDocument>;
export type SeedPrincipal = z.output<typeof principal>;
export type InstanceStateName = (typeof instanceStateNames)[number];
