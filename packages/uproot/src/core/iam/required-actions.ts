/**
 * The IAM actions the cloud provider needs, as data. Source: Rancher, "Setting up the Amazon Cloud Provider"
 * (seed 004, which mirrors cloud-provider-aws docs/prerequisites.md): one policy for control-plane nodes (where
 * the in-tree provider in the KCM, and later the CCM, call EC2, ELB and Auto Scaling) and one for etcd/worker
 * nodes (the kubelet describes its instance and pulls from ECR).
 */
import { hasFeature, type CcmFeature, type CcmRelease } from '../ccm/index.js';

/** Seed 004, "IAM policy for nodes with the controlplane role" (its duplicate elasticloadbalancing:AddTags removed). */
export const CONTROL_PLANE_ACTIONS: readonly string[] = [
  'autoscaling:DescribeAutoScalingGroups',
  'autoscaling:DescribeLaunchConfigurations',
  'autoscaling:DescribeTags',
  'ec2:DescribeInstances',
  'ec2:DescribeRegions',
  'ec2:DescribeRouteTables',
  'ec2:DescribeSecurityGroups',
  'ec2:DescribeSubnets',
  'ec2:DescribeVolumes',
  'ec2:CreateSecurityGroup',
  'ec2:CreateTags',
  'ec2:CreateVolume',
  'ec2:ModifyInstanceAttribute',
  'ec2:ModifyVolume',
  'ec2:AttachVolume',
  'ec2:AuthorizeSecurityGroupIngress',
  'ec2:CreateRoute',
  'ec2:DeleteRoute',
  'ec2:DeleteSecurityGroup',
  'ec2:DeleteVolume',
  'ec2:DetachVolume',
  'ec2:RevokeSecurityGroupIngress',
  'ec2:DescribeVpcs',
  'elasticloadbalancing:AddTags',
  'elasticloadbalancing:AttachLoadBalancerToSubnets',
  'elasticloadbalancing:ApplySecurityGroupsToLoadBalancer',
  'elasticloadbalancing:CreateLoadBalancer',
  'elasticloadbalancing:CreateLoadBalancerPolicy',
  'elasticloadbalancing:CreateLoadBalancerListeners',
  'elasticloadbalancing:ConfigureHealthCheck',
  'elasticloadbalancing:DeleteLoadBalancer',
  'elasticloadbalancing:DeleteLoadBalancerListeners',
  'elasticloadbalancing:DescribeLoadBalancers',
  'elasticloadbalancing:DescribeLoadBalancerAttributes',
  'elasticloadbalancing:DetachLoadBalancerFromSubnets',
  'elasticloadbalancing:DeregisterInstancesFromLoadBalancer',
  'elasticloadbalancing:ModifyLoadBalancerAttributes',
  'elasticloadbalancing:RegisterInstancesWithLoadBalancer',
  'elasticloadbalancing:SetLoadBalancerPoliciesForBackendServer',
  'elasticloadbalancing:CreateListener',
  'elasticloadbalancing:CreateTargetGroup',
  'elasticloadbalancing:DeleteListener',
  'elasticloadbalancing:DeleteTargetGroup',
  'elasticloadbalancing:DescribeListeners',
  'elasticloadbalancing:DescribeLoadBalancerPolicies',
  'elasticloadbalancing:DescribeTargetGroups',
  'elasticloadbalancing:DescribeTargetHealth',
  'elasticloadbalancing:ModifyListener',
  'elasticloadbalancing:ModifyTargetGroup',
  'elasticloadbalancing:RegisterTargets',
  'elasticloadbalancing:SetLoadBalancerPoliciesOfListener',
  'iam:CreateServiceLinkedRole',
  'kms:DescribeKey',
];

/** Seed 004, "IAM policy for nodes with the etcd or worker role": EC2 reads for the kubelet... */
export const NODE_EC2_ACTIONS: readonly string[] = ['ec2:DescribeInstances', 'ec2:DescribeRegions'];

/** ...and ECR pulls, needed only when pods run images from ECR. */
export const NODE_ECR_ACTIONS: readonly string[] = [
  'ecr:GetAuthorizationToken',
  'ecr:BatchCheckLayerAvailability',
  'ecr:GetDownloadUrlForLayer',
  'ecr:GetRepositoryPolicy',
  'ecr:DescribeRepositories',
  'ecr:ListImages',
  'ecr:BatchGetImage',
];

export const NODE_ACTIONS: readonly string[] = [...NODE_EC2_ACTIONS, ...NODE_ECR_ACTIONS];

/**
 * Actions that only some CCM releases call, beyond the seed's policy (both are in cloud-provider-aws
 * docs/prerequisites.md today). A role without them keeps the CCM running: each is a warning for the
 * release the CCM runs, and nothing before that release.
 */
export interface VersionedCcmAction {
  readonly action: string;
  /** The behaviour (src/core/ccm) that calls it, from its first release on. */
  readonly feature: CcmFeature;
  /** What happens without it. */
  readonly without: string;
}

export const CCM_VERSIONED_ACTIONS: readonly VersionedCcmAction[] = [
  {
    // kubernetes/cloud-provider-aws#1038; topology.go logs the UnauthorizedOperation and goes on
    // (kubernetes/kops#17700 shows the log line on every node update).
    action: 'ec2:DescribeInstanceTopology',
    feature: 'instance-topology',
    without:
      'the CCM logs "Not authorized to perform: ec2:DescribeInstanceTopology" and nodes get no topology.k8s.aws/network-node-layer labels (node initialisation goes on)',
  },
  {
    // docs/nlb_security_groups.md: the control-plane role needs it in NLBSecurityGroupMode = Managed.
    action: 'elasticloadbalancing:SetSecurityGroups',
    feature: 'nlb-security-group-mode',
    without:
      'NLB Services cannot have their security groups managed once the cloud config sets NLBSecurityGroupMode = Managed',
  },
];

/**
 * elasticloadbalancing:DescribeTags is not in the list: no tagged release (v1.21.0 to v1.36.1) calls it, and
 * neither docs/prerequisites.md nor the old docs/iam_policy.md list it; only the open pull request
 * kubernetes/cloud-provider-aws#1447 would add an ELBv2 DescribeTags call. Add it here with its release when
 * one ships with it.
 */

/** The version-dependent actions the CCM at `release` calls. */
export function ccmVersionedActions(release: CcmRelease | undefined): VersionedCcmAction[] {
  return release ? CCM_VERSIONED_ACTIONS.filter((a) => hasFeature(release, a.feature)) : [];
}

/** Every version-dependent action (what a role needs for the newest CCM; the twin grants them). */
export const CONTROL_PLANE_RECOMMENDED_ACTIONS: readonly string[] = CCM_VERSIONED_ACTIONS.map(
  (a) => a.action,
);

/** Every action preflight asks the simulator about, once per role. */
export const ALL_EVALUATED_ACTIONS: readonly string[] = [
  ...new Set([...CONTROL_PLANE_ACTIONS, ...CONTROL_PLANE_RECOMMENDED_ACTIONS, ...NODE_ACTIONS]),
];
