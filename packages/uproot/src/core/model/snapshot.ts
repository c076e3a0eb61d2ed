/**
 * What preflight knows about a cluster and its AWS account: plain data, gathered by the adapters
 * (src/adapters/kube/cluster-snapshot.ts, src/adapters/aws/aws-snapshot.ts) and judged by the pure checks.
 * Objects are reduced to the fields the checks read, so a 5,000-node snapshot stays small and a test can
 * build one by hand.
 */
import type { ClusterDefinition } from './cluster-definition.js';
import type { IamEvaluation } from './iam-evaluation.js';
import type { Readable } from './readable.js';
import type { Taint, Toleration } from './taint.js';

export interface NodeFacts {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Only the annotations the checks read (distribution node-args, Rancher addresses). */
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly providerID?: string;
  readonly kubeletVersion: string;
  readonly internalIPs: readonly string[];
  readonly unschedulable: boolean;
  /** status.addresses in order (`uproot snapshot` records them; the checks read internalIPs). */
  readonly addresses?: readonly { readonly type: string; readonly address: string }[];
  /** status.conditions, type and status only (`uproot snapshot` records them). */
  readonly conditions?: readonly { readonly type: string; readonly status: string }[];
}

/** A kube-system pod of a control-plane component (static pods of kubeadm and RKE2, the CCM's pods). */
export interface ComponentPod {
  readonly namespace: string;
  readonly name: string;
  readonly component: string;
  readonly nodeName?: string;
  readonly image?: string;
  /** command and args of the component's container, in order. */
  readonly args: readonly string[];
}

export interface LeaseFacts {
  readonly name: string;
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  /** RFC 3339 MicroTime. */
  readonly renewTime?: string;
}

export interface ResourceAttributes {
  readonly namespace?: string;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly name?: string;
}

/** An identity a controller manager runs as. */
export interface Identity {
  /** Short label for messages: kube-controller-manager or cloud-controller-manager. */
  readonly label: string;
  readonly user: string;
  readonly groups: readonly string[];
}

/** One SubjectAccessReview: asked of the API server, so it reflects every authorizer, not only RBAC. */
export interface AccessReview {
  readonly identity: Identity;
  readonly attributes: ResourceAttributes;
  readonly allowed: boolean;
  readonly reason?: string;
}

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface RoleFacts {
  readonly namespace: string;
  readonly name: string;
  readonly rules: readonly PolicyRule[];
}

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface RoleBindingFacts {
  readonly namespace: string;
  readonly name: string;
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects: readonly Subject[];
}

export interface LeaseRbacFacts {
  readonly reviews: readonly AccessReview[];
  /** kube-system Roles and RoleBindings, to write a fix that keeps the existing rules. */
  readonly roles: Readable<readonly RoleFacts[]>;
  readonly roleBindings: Readable<readonly RoleBindingFacts[]>;
}

export interface ContainerFacts {
  readonly name: string;
  readonly image: string;
  readonly args: readonly string[];
}

/** A DaemonSet (the CCM, the EBS CSI node plugin), reduced to its pod template. */
export interface DaemonSetFacts {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly containers: readonly ContainerFacts[];
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  readonly hostNetwork: boolean;
  readonly serviceAccountName?: string;
  readonly desiredNumberScheduled?: number;
}

/** An RKE2/K3s helm-controller HelmChart (helm.cattle.io/v1). */
export interface HelmChartFacts {
  readonly namespace: string;
  readonly name: string;
  readonly chart: string;
  readonly repo?: string;
  readonly version?: string;
  readonly valuesContent?: string;
}

export interface LoadBalancerServiceFacts {
  readonly namespace: string;
  readonly name: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly loadBalancerClass?: string;
  readonly ingressHostnames: readonly string[];
  /** spec.ports (`uproot snapshot` records them to recreate the Service). */
  readonly ports?: readonly ServicePortFacts[];
}

export interface ServicePortFacts {
  readonly port: number;
  readonly protocol: string;
  readonly targetPort?: number | string;
  readonly nodePort?: number;
}

export interface PersistentVolumeFacts {
  readonly name: string;
  /** `in-tree` = spec.awsElasticBlockStore; `csi` = spec.csi.driver ebs.csi.aws.com. */
  readonly plugin: 'in-tree' | 'csi';
  readonly volumeID?: string;
  readonly storageClassName?: string;
  /** The claim bound to it, `namespace/name` (spec.claimRef). */
  readonly claim?: string;
}

export interface StorageClassFacts {
  readonly name: string;
  readonly provisioner: string;
  readonly isDefault: boolean;
}

/** A container image and how many pods use it (distinct images only: pods are many, images are few). */
export interface ImageUse {
  readonly image: string;
  readonly pods: number;
  readonly example: { readonly namespace: string; readonly name: string };
}

export interface KubeSnapshot {
  /** When the snapshot was read (RFC 3339), from the injected clock; lease freshness is judged against it. */
  readonly readAt: string;
  readonly server: Readable<{ readonly gitVersion: string }>;
  readonly nodes: Readable<readonly NodeFacts[]>;
  readonly componentPods: Readable<readonly ComponentPod[]>;
  /** kube-system Leases. */
  readonly leases: Readable<readonly LeaseFacts[]>;
  readonly leaseRbac: Readable<LeaseRbacFacts>;
  readonly daemonSets: Readable<readonly DaemonSetFacts[]>;
  readonly helmCharts: Readable<readonly HelmChartFacts[]>;
  /** `get serviceaccounts` for the CCM's service account (asked only when a CCM is installed). */
  readonly ccmAccess: Readable<readonly AccessReview[]>;
  /** Services of type LoadBalancer. */
  readonly loadBalancerServices: Readable<readonly LoadBalancerServiceFacts[]>;
  /** PersistentVolumes backed by EBS (in-tree or CSI); others are left out. */
  readonly persistentVolumes: Readable<readonly PersistentVolumeFacts[]>;
  readonly storageClasses: Readable<readonly StorageClassFacts[]>;
  readonly csiDrivers: Readable<readonly string[]>;
  readonly images: Readable<readonly ImageUse[]>;
  /** The distribution's own configuration, from --cluster-file or Rancher (--rancher-context). */
  readonly clusterDefinition?: Readable<ClusterDefinition>;
}

export interface Ec2InstanceFacts {
  readonly instanceId: string;
  readonly privateDnsName: string;
  readonly privateIpAddress?: string;
  readonly state: string;
  readonly availabilityZone: string;
  readonly vpcId?: string;
  readonly subnetId?: string;
  readonly securityGroupIds: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  readonly iamInstanceProfileArn?: string;
  readonly instanceType?: string;
  /** DescribeInstances MetadataOptions; absent when EC2 did not report them (or snapshots from before). */
  readonly metadataOptions?: InstanceMetadataFacts;
}

/** An instance's metadata options as far as reaching instance metadata goes. */
export interface InstanceMetadataFacts {
  /** `optional` (IMDSv1 still answers) or `required` (IMDSv2 only). */
  readonly httpTokens: string;
  /** How many hops the token PUT's answer travels: 1 keeps it from pods on the pod network. */
  readonly httpPutResponseHopLimit: number;
  /** `enabled` or `disabled`. */
  readonly httpEndpoint: string;
}

export interface SubnetFacts {
  readonly subnetId: string;
  readonly vpcId: string;
  readonly availabilityZone: string;
  readonly cidrBlock?: string;
  readonly tags: Readonly<Record<string, string>>;
}

export interface SecurityGroupFacts {
  readonly groupId: string;
  readonly groupName: string;
  readonly vpcId?: string;
  readonly tags: Readonly<Record<string, string>>;
}

export interface IamPolicyFacts {
  readonly name: string;
  readonly kind: 'inline' | 'managed';
  readonly arn?: string;
  /** The decoded policy document (JSON object). */
  readonly document: unknown;
}

export interface IamRoleFacts {
  readonly name: string;
  readonly arn: string;
  readonly policies: readonly IamPolicyFacts[];
  readonly permissionsBoundary?: IamPolicyFacts;
}

export interface InstanceProfileFacts {
  readonly arn: string;
  readonly name: string;
  /** The profile's role, or why it could not be read (AccessDenied on iam:GetInstanceProfile, ...). */
  readonly roles: Readable<readonly string[]>;
}

export interface IamFacts {
  readonly profiles: readonly InstanceProfileFacts[];
  /** Roles by name; a role whose policies could not be read is `unavailable`. */
  readonly roles: Readonly<Record<string, Readable<IamRoleFacts>>>;
}

/** A VPC's DHCP options as far as node names go: the domain its instances' hostnames and metadata carry. */
export interface VpcDhcpFacts {
  readonly vpcId: string;
  /** The VPC's DHCP options set, or `default` when it has none. */
  readonly dhcpOptionsId: string;
  /** The set's `domain-name` (one or more domains, space-separated); absent when the set names none. */
  readonly domainName?: string;
  /** The VPC's primary CIDR and tags (`uproot snapshot` records them). */
  readonly cidrBlock?: string;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface LoadBalancerFacts {
  readonly name: string;
  readonly dnsName: string;
  readonly type: 'classic' | 'application' | 'network' | 'gateway';
}

export interface AwsFacts {
  readonly region: string;
  readonly accountId: string;
  /** Every instance found for the nodes: by private DNS name, by the instance id in resource names and providerIDs. */
  readonly instances: Readable<readonly Ec2InstanceFacts[]>;
  /** The subnets of the nodes' VPCs. */
  readonly subnets: Readable<readonly SubnetFacts[]>;
  /** The security groups attached to the nodes' instances. */
  readonly securityGroups: Readable<readonly SecurityGroupFacts[]>;
  readonly iam: Readable<IamFacts>;
  /**
   * The DHCP options of the instances' VPCs (DescribeVpcs, then DescribeDhcpOptions). Absent in snapshots
   * taken before preflight read them; node-name-settings then cannot predict names after the switch.
   */
  readonly vpcDhcp?: Readable<readonly VpcDhcpFacts[]>;
  /** Read only when the cluster has LoadBalancer Services. */
  readonly loadBalancers?: Readable<readonly LoadBalancerFacts[]>;
}

export interface PreflightSnapshot {
  readonly kube: KubeSnapshot;
  readonly aws: Readable<AwsFacts>;
  /**
   * The instance roles' policies evaluated against the required actions (src/core/iam). Derived from
   * `aws.iam` by an async simulation, so it is computed between read and check, not inside a check.
   */
  readonly iam?: Readable<IamEvaluation>;
}
