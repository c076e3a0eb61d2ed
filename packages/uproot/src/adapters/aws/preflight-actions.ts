/**
 * Every AWS action preflight calls (sts:GetCallerIdentity needs no permission): the least-privilege policy
 * docs/preflight.md prints ("Least privileges preflight needs"), kept equal to it by a test.
 */
export const PREFLIGHT_AWS_ACTIONS: readonly string[] = [
  'ec2:DescribeInstances',
  'ec2:DescribeSubnets',
  'ec2:DescribeSecurityGroups',
  'ec2:DescribeVpcs',
  'ec2:DescribeDhcpOptions',
  'iam:GetInstanceProfile',
  'iam:ListRolePolicies',
  'iam:GetRolePolicy',
  'iam:ListAttachedRolePolicies',
  'iam:GetPolicy',
  'iam:GetPolicyVersion',
  'elasticloadbalancing:DescribeLoadBalancers',
];
