/**
 * Behaviours that appeared in a given cloud-provider-aws release, where uproot's checks or the twin depend on
 * them. Each names the first release per minor that has it (backports included) and every later minor.
 */
import type { CcmRelease } from './ccm-releases.js';

export type CcmFeature = 'instance-topology' | 'nlb-security-group-mode' | 'refuses-lb-type-change';

export interface FeatureSince {
  /** Every release of this minor and later has it. */
  readonly fromMinor: number;
  /** Backports: the first patch of an older minor that has it. */
  readonly backports?: Readonly<Record<number, number>>;
  readonly source: string;
}

export const CCM_FEATURES: Readonly<Record<CcmFeature, FeatureSince>> = {
  // Node network-topology labels (topology.k8s.aws/network-node-layer-N) from ec2:DescribeInstanceTopology:
  // kubernetes/cloud-provider-aws#1038 (v1.32.0), backported to v1.30.4 and v1.31.2
  // (pkg/resourcemanagers/topology.go, moved to pkg/providers/v1/topology.go in v1.30.10, v1.31.9, v1.32.4,
  // v1.33.1).
  'instance-topology': {
    fromMinor: 32,
    backports: { 30: 4, 31: 2 },
    source: 'kubernetes/cloud-provider-aws#1038, pkg/providers/v1/topology.go',
  },
  // `[Global] NLBSecurityGroupMode = Managed`: a controller-managed security group per NLB
  // (pkg/providers/v1/config/config.go from v1.35.0; docs/nlb_security_groups.md).
  'nlb-security-group-mode': {
    fromMinor: 35,
    source: 'docs/nlb_security_groups.md, pkg/providers/v1/config/config.go',
  },
  // The service controller refuses a Service whose aws-load-balancer-type annotation no longer matches its
  // load balancer (status hostname) instead of creating a second one: kubernetes/cloud-provider-aws#1325
  // (pkg/providers/v1/aws_validations.go), first in v1.36.0. Older releases create the new kind and leak the
  // old one (kubernetes/cloud-provider-aws#1254).
  'refuses-lb-type-change': {
    fromMinor: 36,
    source: 'kubernetes/cloud-provider-aws#1325, pkg/providers/v1/aws_validations.go',
  },
};

export function hasFeature(release: CcmRelease, feature: CcmFeature): boolean {
  const since = CCM_FEATURES[feature];
  if (release.major !== 1) return release.major > 1;
  if (release.minor >= since.fromMinor) return true;
  const backport = since.backports?.[release.minor];
  return backport !== undefined && release.patch >= backport;
}

/** The first release that has `feature`, as text (`v1.30.4, v1.31.2, v1.32.0`), for messages. */
export function featureSince(feature: CcmFeature): string {
  const since = CCM_FEATURES[feature];
  const backports = Object.entries(since.backports ?? {}).map(([minor, patch]) => `v1.${minor}.${patch}`);
  return [...backports, `v1.${since.fromMinor}.0`].join(', ');
}

/**
 * Whether a role without ec2:DescribeInstanceTopology stops node initialisation: no release does. Every
 * release that calls it handles UnauthorizedOperation by logging `Not authorized to perform:
 * ec2:DescribeInstanceTopology, permission missing: …`, marking the region unsupported for 24 hours and
 * returning no topology (topology.go, GetNodeTopology, at every tag from v1.30.4 to v1.36.1); the node is
 * initialised without the network-node labels. (From v1.30.10, v1.31.9, v1.32.4 and v1.33.1 other errors
 * do block nodes of instance types that support topology, in getAdditionalLabels, instances_v2.go.)
 */
export const MISSING_TOPOLOGY_PERMISSION_BLOCKS_INIT = false;

/**
 * Whether `release` can run the Node IPAM controller (seed 003's special case: move nodeipam to the CCM only
 * where the provider implements it). No cloud-provider-aws release does: cmd/aws-cloud-controller-manager/
 * main.go (v1.21.0 to v1.36.1) starts k8s.io/cloud-provider's app.DefaultInitFuncConstructors — cloud-node,
 * cloud-node-lifecycle, service, route — plus its own tagging controller (from v1.22), and
 * k8s.io/cloud-provider's options/generic.go rejects any other --controllers name with `"nodeipam" is not in
 * the list of known controllers`. nodeipam stays in kube-controller-manager.
 */
export function implementsNodeIpam(release: CcmRelease): boolean {
  void release;
  return false;
}
