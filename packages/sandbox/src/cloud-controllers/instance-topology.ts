import { DescribeInstanceTopologyCommand } from '@aws-sdk/client-ec2';
import { hasFeature, type KubernetesVersion } from 'uproot/core';
import type { Clock } from 'uproot';
import { toAwsCallError, type AwsApi } from './aws-api.js';

/** cloud-provider-aws well_known_labels.go: LabelNetworkNodePrefix. */
export const NETWORK_NODE_LABEL_PREFIX = 'topology.k8s.aws/network-node-layer-';
/** topology.go: instanceTopologyManagerCacheTimeout. */
const UNSUPPORTED_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The CCM's instanceTopologyManager (kubernetes/cloud-provider-aws pkg/providers/v1/topology.go, from the
 * releases src/core/ccm lists for `instance-topology`): one per manager process. For a node without the
 * network-node labels it asks ec2:DescribeInstanceTopology for the node's instance. A role without the
 * permission gets UnauthorizedOperation, which every such release logs as
 * `Not authorized to perform: ec2:DescribeInstanceTopology, permission missing: %q` and then remembers the
 * region as unsupported for 24 hours; the node is initialised without the labels. An empty answer marks the
 * instance type unsupported. Not modelled: the later releases' refusal to initialise nodes of topology-capable
 * types on other errors (getAdditionalLabels, v1.30.10/v1.31.9/v1.32.4/v1.33.1 on); here other errors are
 * logged and the labels skipped.
 */
export class InstanceTopology {
  private readonly unsupported = new Map<string, number>();

  constructor(
    private readonly api: AwsApi,
    private readonly clock: Clock,
    private readonly version: KubernetesVersion,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether this manager's release asks for topology at all. */
  get enabled(): boolean {
    return hasFeature(this.version, 'instance-topology');
  }

  /** The labels to add for the instance, or none (unsupported, not authorized, or an error, each logged). */
  async labelsFor(instanceId: string, instanceType: string): Promise<Record<string, string>> {
    if (!this.enabled || !instanceType) return {};
    const region = this.api.region;
    if (this.isUnsupported(region) || this.isUnsupported(instanceId) || this.isUnsupported(instanceType))
      return {};
    let nodes: readonly string[] | undefined;
    try {
      const out = await this.api.send(() =>
        this.api.ec2.send(new DescribeInstanceTopologyCommand({ InstanceIds: [instanceId] })),
      );
      nodes = out.Instances?.[0]?.NetworkNodes;
    } catch (error) {
      const e = toAwsCallError(error);
      const quoted = JSON.stringify(goSdkErrorText(e.code, e.message, e.status, e.cause));
      if (e.code === 'UnsupportedOperation') {
        this.log(`ec2:DescribeInstanceTopology is not available in ${region}: ${quoted}`);
        this.markUnsupported(region);
      } else if (e.code === 'UnauthorizedOperation') {
        this.log(`Not authorized to perform: ec2:DescribeInstanceTopology, permission missing: ${quoted}`);
        this.markUnsupported(region);
      } else {
        this.log(`Error describing instance topology: ${quoted}`);
        this.log(`Failed to get node topology. Moving on without setting labels: ${quoted}`);
      }
      return {};
    }
    if (!nodes || nodes.length === 0) {
      this.log(`Instance type ${instanceType} unsupported for getting instance topology`);
      this.markUnsupported(instanceType);
      return {};
    }
    return Object.fromEntries(nodes.map((node, i) => [`${NETWORK_NODE_LABEL_PREFIX}${i + 1}`, node]));
  }

  private isUnsupported(key: string): boolean {
    const until = this.unsupported.get(key);
    return until !== undefined && until > this.clock.now();
  }

  private markUnsupported(key: string): void {
    this.unsupported.set(key, this.clock.now() + UNSUPPORTED_TTL_MS);
  }
}

/** How aws-sdk-go-v2 prints an API error (smithy OperationError around a ResponseError). */
function goSdkErrorText(code: string, message: string, status: number | undefined, cause: unknown): string {
  const requestId = (cause as { $metadata?: { requestId?: string } }).$metadata?.requestId ?? '';
  return `operation error EC2: DescribeInstanceTopology, https response error StatusCode: ${status ?? 0}, RequestID: ${requestId}, api error ${code}: ${message}`;
}
