/**
 * The IAM actions the cloud provider needs, as data. Source: Rancher, "Setting up the Amazon Cloud Provider"
 * (seed 004, which mirrors cloud-provider-aws docs/prerequisites.md): one policy for control-plane nodes (where
 * the in-tree provider in the KCM, and later the CCM, call EC2, ELB and Auto Scaling) and one for etcd/worker
 * nodes (the kubelet describes its instance and pulls from ECR).
 */

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
 * Not in the seed's policy, but in cloud-provider-aws docs/prerequisites.md since the CCM labels nodes with
 * their network topology; without it the CCM logs errors and skips the labels (a warning, not a failure).
 */
export const CONTROL_PLANE_RECOMMENDED_ACTIONS: readonly string[] = ['ec2:DescribeInstanceTopology'];

/** Every action preflight asks the simulator about, once per role. */
export const ALL_EVALUATED_ACTIONS: readonly string[] = [
  ...new Set([...CONTROL_PLANE_ACTIONS, ...CONTROL_PLANE_RECOMMENDED_ACTIONS, ...NODE_ACTIONS]),
];
