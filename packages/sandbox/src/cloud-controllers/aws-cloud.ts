import {
  DescribeInstancesCommand,
  type DescribeInstancesCommandInput,
  type Filter,
  type Instance,
} from '@aws-sdk/client-ec2';
import type { AwsApi } from './aws-api.js';
import { clusterIdFromTags, hasClusterTag, NO_CLUSTER_ID_MESSAGE } from './cluster-tags.js';
import { formatProviderId, instanceIdFromNodeName, parseProviderId, regionOfZone } from './provider-id.js';

/** An error from the cloud layer, worded as cloud-provider-aws words it (these texts end up in events). */
export class CloudError extends Error {
  readonly kind: 'InstanceNotFound' | 'NoClusterId' | 'Other';

  constructor(kind: CloudError['kind'], message: string) {
    super(message);
    this.name = 'CloudError';
    this.kind = kind;
  }
}

/** cloudprovider.InstanceNotFound's text. */
export const instanceNotFound = (): CloudError => new CloudError('InstanceNotFound', 'instance not found');

/** The cluster identity the cloud provider filters and tags with. */
export interface ClusterTagging {
  readonly clusterId: string | undefined;
  readonly legacy: boolean;
}

/** Instance states findInstanceByNodeName accepts (everything but terminated). */
const ALIVE = ['pending', 'running', 'shutting-down', 'stopping', 'stopped'];

/**
 * The shared AWS view of one manager process (what cloud-provider-aws's `Cloud` object is): instance lookups
 * by node name, provider ID or id, filtered to the cluster's tagged instances, with the cluster id read once
 * from the manager's own instance (its IMDS instance id, or its node name when not given).
 */
export class AwsCloud {
  readonly api: AwsApi;
  private readonly selfInstanceId: string | undefined;
  private readonly selfNodeName: string;
  private tagging: ClusterTagging | undefined;
  private self: Instance | undefined;

  constructor(api: AwsApi, options: { selfNodeName: string; selfInstanceId?: string; clusterId?: string }) {
    this.api = api;
    this.selfNodeName = options.selfNodeName;
    this.selfInstanceId = options.selfInstanceId;
    if (options.clusterId) this.tagging = { clusterId: options.clusterId, legacy: false };
  }

  get region(): string {
    return this.api.region;
  }

  /**
   * The cluster id from the manager's own instance tags (awsTagging.initFromTags). Untagged: no filtering
   * (clusterId undefined), as with allow-untagged-cloud; callers that must tag what they create use
   * `requireClusterId`. Conflicting tags are an error.
   */
  async clusterTagging(): Promise<ClusterTagging> {
    if (this.tagging) return this.tagging;
    const self = await this.selfInstance();
    const found = clusterIdFromTags(self?.Tags);
    if (found.kind === 'error') throw new CloudError('Other', found.message);
    const tagging: ClusterTagging =
      found.kind === 'found'
        ? { clusterId: found.clusterId, legacy: found.legacy }
        : { clusterId: undefined, legacy: false };
    // Only a found id is cached: a tag added later is picked up, as a restarted manager would.
    if (tagging.clusterId) this.tagging = tagging;
    return tagging;
  }

  /** The cluster id, or the managers' "no ClusterID found" error. */
  async requireClusterId(): Promise<ClusterTagging & { clusterId: string }> {
    const tagging = await this.clusterTagging();
    if (!tagging.clusterId) throw new CloudError('NoClusterId', NO_CLUSTER_ID_MESSAGE);
    return { ...tagging, clusterId: tagging.clusterId };
  }

  /** The instance the manager runs on (unfiltered: the cluster id is not known before it). */
  private async selfInstance(): Promise<Instance | undefined> {
    if (this.self) return this.self;
    const found = this.selfInstanceId
      ? await this.describeById(this.selfInstanceId).catch(() => undefined)
      : await this.findByNodeName(this.selfNodeName, undefined).catch(() => undefined);
    this.self = found;
    return found;
  }

  /**
   * The VPC the cloud provider works in: its own instance's (from metadata upstream), else that of the first
   * of `fallback` (the instances it is about to use).
   */
  async vpcId(fallback: readonly Instance[] = []): Promise<string> {
    const self = await this.selfInstance();
    const vpc = self?.VpcId ?? fallback.find((i) => i.VpcId)?.VpcId;
    if (!vpc) throw new CloudError('Other', 'could not determine the VPC of the cluster');
    return vpc;
  }

  /** DescribeInstances with filters, all pages, keeping only the cluster's instances (describeInstances). */
  async describeInstances(filters: Filter[]): Promise<Instance[]> {
    const { clusterId } = await this.clusterTagging();
    return (await this.describeAll({ Filters: filters })).filter((i) => hasClusterTag(i.Tags, clusterId));
  }

  private async describeAll(input: DescribeInstancesCommandInput): Promise<Instance[]> {
    const out: Instance[] = [];
    let token: string | undefined;
    do {
      const page = await this.api.send(() =>
        this.api.ec2.send(new DescribeInstancesCommand({ ...input, ...(token ? { NextToken: token } : {}) })),
      );
      for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
      token = page.NextToken || undefined;
    } while (token);
    return out;
  }

  /** getInstanceByID: DescribeInstances by id (EC2's own errors for unknown or malformed ids). */
  async instanceById(instanceId: string): Promise<Instance> {
    const found = await this.describeById(instanceId);
    if (!found) throw instanceNotFound();
    return found;
  }

  private async describeById(instanceId: string): Promise<Instance | undefined> {
    const all = await this.describeAll({ InstanceIds: [instanceId] });
    if (all.length > 1) throw new CloudError('Other', `multiple instances found for instance: ${instanceId}`);
    return all[0];
  }

  /** getInstancesByIDs: unknown ids are simply missing from the map. */
  async instancesByIds(ids: readonly string[]): Promise<Map<string, Instance>> {
    const map = new Map<string, Instance>();
    if (ids.length === 0) return map;
    for (const instance of await this.describeAll({ InstanceIds: [...ids] })) {
      if (instance.InstanceId) map.set(instance.InstanceId, instance);
    }
    return map;
  }

  /**
   * getInstanceByNodeName: resource-based names (`i-…`, text before the first dot) by id; other names with
   * the `private-dns-name` filter over live, cluster-tagged instances. None → "instance not found".
   */
  async instanceForNodeName(nodeName: string): Promise<Instance> {
    const id = instanceIdFromNodeName(nodeName);
    if (id !== undefined) return this.instanceById(id);
    const { clusterId } = await this.clusterTagging();
    const found = await this.findByNodeName(nodeName, clusterId);
    if (!found) throw instanceNotFound();
    return found;
  }

  private async findByNodeName(
    nodeName: string,
    clusterId: string | undefined,
  ): Promise<Instance | undefined> {
    const id = instanceIdFromNodeName(nodeName);
    if (id !== undefined) return this.describeById(id);
    const all = (
      await this.describeAll({
        Filters: [
          { Name: 'private-dns-name', Values: [nodeName] },
          { Name: 'instance-state-name', Values: ALIVE },
        ],
      })
    ).filter((i) => hasClusterTag(i.Tags, clusterId));
    if (all.length > 1) throw new CloudError('Other', `multiple instances found for name: ${nodeName}`);
    return all[0];
  }

  /** getProviderID: the node's own, or `aws:///<az>/<id>` of the instance its name resolves to. */
  async providerIdFor(node: { name: string; providerID?: string | undefined }): Promise<string> {
    if (node.providerID) return node.providerID;
    const instance = await this.instanceForNodeName(node.name);
    return formatProviderId(instance.Placement?.AvailabilityZone ?? '', instance.InstanceId ?? '');
  }

  /** The instance behind a provider ID (MapToAWSInstanceID, then getInstanceByID). */
  async instanceForProviderId(providerId: string): Promise<Instance> {
    const parsed = parseProviderId(providerId);
    if (!parsed.ok) throw new CloudError('Other', parsed.error);
    return this.instanceById(parsed.instanceId);
  }

  /**
   * InstanceExistsByProviderID: NotFound and terminated mean gone. Errors other than NotFound propagate
   * (the lifecycle controller then leaves the node alone).
   */
  async instanceExists(providerId: string): Promise<boolean> {
    const parsed = parseProviderId(providerId);
    if (!parsed.ok) throw new CloudError('Other', parsed.error);
    try {
      const instance = await this.describeById(parsed.instanceId);
      return instance !== undefined && instance.State?.Name !== 'terminated';
    } catch (error) {
      if ((error as { code?: string }).code === 'InvalidInstanceID.NotFound') return false;
      throw error;
    }
  }

  /** InstanceShutdownByProviderID: only `stopped` counts as shut down. */
  async instanceShutdown(providerId: string): Promise<boolean> {
    const instance = await this.instanceForProviderId(providerId);
    return instance.State?.Name === 'stopped';
  }
}

/** What the cloud-node controller writes for an instance (InstanceMetadata). */
export interface InstanceMetadata {
  readonly providerId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly region: string;
  readonly addresses: readonly { type: string; address: string }[];
  /** InstanceMetadata.AdditionalLabels (the network-topology labels). */
  readonly additionalLabels?: Readonly<Record<string, string>>;
}

/** getInstanceNodeAddress: private IPs as InternalIP, private DNS as InternalDNS and Hostname, then public. */
export function instanceMetadata(instance: Instance, providerId: string): InstanceMetadata {
  const zone = instance.Placement?.AvailabilityZone ?? '';
  const addresses: { type: string; address: string }[] = [];
  if (instance.PrivateIpAddress) addresses.push({ type: 'InternalIP', address: instance.PrivateIpAddress });
  if (instance.PublicIpAddress) addresses.push({ type: 'ExternalIP', address: instance.PublicIpAddress });
  if (instance.PrivateDnsName) {
    addresses.push({ type: 'InternalDNS', address: instance.PrivateDnsName });
    addresses.push({ type: 'Hostname', address: instance.PrivateDnsName });
  }
  if (instance.PublicDnsName) addresses.push({ type: 'ExternalDNS', address: instance.PublicDnsName });
  return {
    providerId,
    instanceType: instance.InstanceType ?? '',
    zone,
    region: zone ? regionOfZone(zone) : '',
    addresses,
  };
}
