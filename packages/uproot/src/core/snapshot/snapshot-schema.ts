import { z } from 'zod';

/**
 * `uproot snapshot`'s record of a live cluster and its AWS account (issue 27): the `snapshot:` section of a
 * scenario file, which the sandbox replays as a twin. It holds what preflight, plan and migrate depend on and
 * nothing secret: no Secret data, tokens, client keys, AWS keys, kubeconfig credentials or instance user data
 * (none of them is ever read). Every object is strict, so a hand edit that misspells a field is reported with
 * its place (file, field, value) instead of being ignored. Parts preflight keeps as its own facts (leases,
 * RBAC, component pods, the cluster definition) are recorded as read and replayed through the scenario's
 * generator fields, so they are checked as objects only.
 */

export const SNAPSHOT_FORMAT_VERSION = 1;

const tags = z.record(z.string(), z.string());
const stringMap = z.record(z.string(), z.string());
const awsId = (prefix: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}-[0-9a-f]{8,17}$`), `must look like ${prefix}- and 8 or 17 hex digits`);
const ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/, 'must be an IPv4 address such as 10.0.1.23');
const cidr = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'must be an IPv4 CIDR such as 10.0.0.0/16');

const taint = z
  .object({ key: z.string().min(1), value: z.string().optional(), effect: z.string().min(1) })
  .strict();

export const snapshotNodeSchema = z
  .object({
    name: z.string().min(1),
    labels: stringMap.default({}),
    /** The annotations preflight reads (distribution node-args, Rancher addresses). */
    annotations: stringMap.default({}),
    taints: z.array(taint).default([]),
    providerID: z.string().optional(),
    kubeletVersion: z.string().default(''),
    addresses: z
      .array(z.object({ type: z.string().min(1), address: z.string().min(1) }).strict())
      .default([]),
    conditions: z
      .array(z.object({ type: z.string().min(1), status: z.string().min(1) }).strict())
      .default([]),
    unschedulable: z.boolean().default(false),
  })
  .strict();

const servicePort = z
  .object({
    port: z.number().int().min(1).max(65535),
    protocol: z.string().default('TCP'),
    targetPort: z.union([z.number().int().min(1).max(65535), z.string().min(1)]).optional(),
    nodePort: z.number().int().min(1).max(65535).optional(),
  })
  .strict();

export const snapshotServiceSchema = z
  .object({
    namespace: z.string().min(1),
    name: z.string().min(1),
    annotations: stringMap.default({}),
    loadBalancerClass: z.string().optional(),
    ports: z.array(servicePort).default([]),
    /** status.loadBalancer.ingress[].hostname: the replay gives the Service the same one. */
    hostnames: z.array(z.string().min(1)).default([]),
  })
  .strict();

/** Facts recorded as preflight read them; replayed through the scenario's generator fields. */
const recordedFacts = z.array(z.record(z.string(), z.unknown())).default([]);

const kubernetes = z
  .object({
    serverVersion: z.string().default(''),
    nodes: z.array(snapshotNodeSchema).default([]),
    loadBalancerServices: z.array(snapshotServiceSchema).default([]),
    storageClasses: z
      .array(
        z
          .object({ name: z.string().min(1), provisioner: z.string().min(1), isDefault: z.boolean() })
          .strict(),
      )
      .default([]),
    persistentVolumes: z
      .array(
        z
          .object({
            name: z.string().min(1),
            plugin: z.enum(['in-tree', 'csi']),
            volumeID: z.string().optional(),
            storageClassName: z.string().optional(),
            claim: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
    csiDrivers: z.array(z.string().min(1)).default([]),
    leases: recordedFacts,
    componentPods: recordedFacts,
    daemonSets: recordedFacts,
    helmCharts: recordedFacts,
    /** SubjectAccessReviews of the migration lease, and the kube-system Roles and RoleBindings. */
    leaseRbac: z.record(z.string(), z.unknown()).optional(),
    /** The distribution's definition as preflight read it (Rancher Cluster, cluster.yml, kubeadm manifest). */
    clusterDefinition: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const metadataOptions = z
  .object({
    httpTokens: z.enum(['optional', 'required']),
    httpPutResponseHopLimit: z.number().int().min(1).max(64),
    httpEndpoint: z.enum(['enabled', 'disabled']).default('enabled'),
  })
  .strict();

export const snapshotInstanceSchema = z
  .object({
    instanceId: awsId('i'),
    instanceType: z.string().min(1).default('m5.large'),
    privateDnsName: z.string().min(1),
    privateIpAddress: ipv4,
    state: z.string().default('running'),
    availabilityZone: z.string().min(1),
    vpcId: awsId('vpc').optional(),
    subnetId: awsId('subnet'),
    securityGroupIds: z.array(awsId('sg')).default([]),
    tags: tags.default({}),
    /** The instance profile's name (its ARN's last part). */
    iamInstanceProfile: z.string().min(1).optional(),
    metadataOptions: metadataOptions.optional(),
  })
  .strict();

const policy = z
  .object({
    name: z.string().min(1),
    kind: z.enum(['inline', 'managed']),
    arn: z.string().startsWith('arn:').optional(),
    document: z.record(z.string(), z.unknown()),
  })
  .strict();

/** An ELBv2 target group (NLB, ALB) with its registered targets (instance ids, or IPs for `ip` groups). */
const targetGroup = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, 'must be 1-32 letters, digits or hyphens'),
    protocol: z.string().default('TCP'),
    port: z.number().int().min(1).max(65535),
    targetType: z.enum(['instance', 'ip']).default('instance'),
    vpcId: awsId('vpc').optional(),
    targets: z
      .array(
        z.object({ id: z.string().min(1), port: z.number().int().min(1).max(65535).optional() }).strict(),
      )
      .default([]),
  })
  .strict();

const loadBalancer = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, 'must be 1-32 letters, digits or hyphens'),
    dnsName: z.string().min(1),
    type: z.enum(['classic', 'network', 'application']),
    scheme: z.enum(['internet-facing', 'internal']).default('internet-facing'),
    subnetIds: z.array(awsId('subnet')).default([]),
    securityGroupIds: z.array(awsId('sg')).default([]),
    listeners: z
      .array(
        z
          .object({
            port: z.number().int().min(1).max(65535),
            protocol: z.string().default('TCP'),
            instancePort: z.number().int().min(1).max(65535).optional(),
            /** ELBv2: the target group the listener's default action forwards to. */
            targetGroup: z.string().min(1).optional(),
          })
          .strict(),
      )
      .default([]),
    /** Registered instances (classic) or instance targets (v2). */
    instanceIds: z.array(awsId('i')).default([]),
    /** ELBv2: the target groups its listeners forward to, with their targets. */
    targetGroups: z.array(targetGroup).default([]),
    tags: tags.default({}),
  })
  .strict();

const aws = z
  .object({
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a region such as us-east-1'),
    accountId: z.string().default(''),
    instances: z.array(snapshotInstanceSchema).default([]),
    vpcs: z
      .array(
        z
          .object({
            vpcId: awsId('vpc'),
            cidrBlock: cidr,
            dhcpOptionsId: z.string().default('default'),
            /** The DHCP options' `domain-name`; absent for a set without one. */
            domainName: z.string().optional(),
            tags: tags.default({}),
          })
          .strict(),
      )
      .default([]),
    subnets: z
      .array(
        z
          .object({
            subnetId: awsId('subnet'),
            vpcId: awsId('vpc'),
            cidrBlock: cidr,
            availabilityZone: z.string().min(1),
            tags: tags.default({}),
          })
          .strict(),
      )
      .default([]),
    routeTables: z
      .array(
        z
          .object({
            routeTableId: awsId('rtb'),
            vpcId: awsId('vpc'),
            main: z.boolean().default(false),
            subnetIds: z.array(awsId('subnet')).default([]),
            tags: tags.default({}),
          })
          .strict(),
      )
      .default([]),
    securityGroups: z
      .array(
        z
          .object({
            groupId: awsId('sg'),
            groupName: z.string().min(1),
            vpcId: awsId('vpc').optional(),
            tags: tags.default({}),
          })
          .strict(),
      )
      .default([]),
    instanceProfiles: z
      .array(z.object({ name: z.string().min(1), roles: z.array(z.string().min(1)).default([]) }).strict())
      .default([]),
    roles: z
      .array(z.object({ name: z.string().min(1), policies: z.array(policy).default([]) }).strict())
      .default([]),
    loadBalancers: z.array(loadBalancer).default([]),
  })
  .strict();

/** The `snapshot:` section of a scenario file: what `uproot snapshot` records and the sandbox replays. */
export const clusterSnapshotSchema = z
  .object({
    formatVersion: z.literal(SNAPSHOT_FORMAT_VERSION),
    /** When it was taken (RFC 3339). */
    takenAt: z.string().min(1),
    /** Where from: the kubeconfig context and server (never its credentials), Rancher's Cluster. */
    source: z
      .object({
        context: z.string().optional(),
        server: z.string().optional(),
        rancherCluster: z.string().optional(),
      })
      .strict()
      .default({}),
    /** The cluster id of the `kubernetes.io/cluster/<id>` tags. */
    clusterId: z.string().min(1),
    /** Parts that could not be read, and why (the replay cannot reproduce them). */
    unavailable: z.record(z.string(), z.string()).default({}),
    kubernetes: kubernetes,
    aws: aws.optional(),
  })
  .strict();

/** What `uproot snapshot` writes (defaults optional). */
export type ClusterSnapshotInput = z.input<typeof clusterSnapshotSchema>;
/** A validated snapshot with defaults filled in. */
export type ClusterSnapshot = z.output<typeof clusterSnapshotSchema>;
export type SnapshotNode = z.output<typeof snapshotNodeSchema>;
export type SnapshotService = z.output<typeof snapshotServiceSchema>;
export type SnapshotInstance = z.output<typeof snapshotInstanceSchema>;
export type SnapshotInstanceInput = z.input<typeof snapshotInstanceSchema>;
export type SnapshotAws = NonNullable<ClusterSnapshot['aws']>;
