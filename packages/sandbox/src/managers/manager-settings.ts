import { atLeast, unknownProviderForKcm } from 'uproot/core';
import { parseGoBool, type ManagerFlags } from 'uproot/election';
import type { CloudControllerSettings } from '../cloud-controllers/controller-context.js';
import { parseCidr } from '../cloud-controllers/pod-cidr.js';

/**
 * The flags the election library leaves in `other` that the cloud controllers need, with their upstream
 * defaults: --cluster-name (kubernetes), --allocate-node-cidrs (false), --cluster-cidr, --node-cidr-mask-size
 * (24). Returns the settings or the first error, worded as pflag words it.
 */
export function cloudControllerSettings(
  flags: ManagerFlags,
): { settings: CloudControllerSettings } | { error: string } {
  const other = flags.other;
  let allocateNodeCidrs = false;
  const allocate = other['allocate-node-cidrs'];
  if (allocate !== undefined) {
    try {
      allocateNodeCidrs = parseGoBool(allocate);
    } catch (error) {
      return {
        error: `invalid argument ${JSON.stringify(allocate)} for "--allocate-node-cidrs" flag: ${(error as Error).message}`,
      };
    }
  }
  const maskText = other['node-cidr-mask-size'] ?? other['node-cidr-mask-size-ipv4'];
  const nodeCidrMaskSize = maskText === undefined ? 24 : Number(maskText);
  if (!Number.isInteger(nodeCidrMaskSize) || nodeCidrMaskSize < 0 || nodeCidrMaskSize > 32) {
    return {
      error: `invalid argument ${JSON.stringify(maskText)} for "--node-cidr-mask-size" flag: strconv.ParseInt: parsing ${JSON.stringify(maskText)}: invalid syntax`,
    };
  }
  const clusterCidr = other['cluster-cidr'];
  if (allocateNodeCidrs && clusterCidr !== undefined && !parseCidr(clusterCidr.split(',')[0] ?? '')) {
    return { error: `invalid CIDR address: ${clusterCidr}` };
  }
  return {
    settings: {
      clusterName: other['cluster-name'] ?? 'kubernetes',
      clusterCidr: clusterCidr?.split(',')[0],
      nodeCidrMaskSize,
      allocateNodeCidrs,
      configureCloudRoutes: flags.configureCloudRoutes,
    },
  };
}

/** Why a manager cannot run with its --cloud-provider, and when upstream finds out. */
export interface CloudProviderFailure {
  /** As the manager logs it. */
  readonly message: string;
  /**
   * True for the KCM: it builds its controller context (and so initialises the cloud provider) only once it
   * leads the `kube-controller-manager` lease, so a standby looks healthy and each new leader crashes
   * (kubernetes/kubernetes cmd/kube-controller-manager/app/controllermanager.go: `run` is called from
   * OnStartedLeading and exits 1 on "Error building controller context"). The CCM initialises its provider
   * before the election (cloud-provider app/controllermanager.go cloudInitializer, klog.Fatalf).
   */
  readonly afterLeading: boolean;
}

/**
 * Whether the manager can run with its --cloud-provider: the CCM only knows `aws` here; the KCM runs the
 * in-tree provider `aws` up to 1.26 (removed from the tree in 1.27, kubernetes/kubernetes#115838) or
 * `external`/none. Anything else fails in k8s.io/cloud-provider plugins.go InitCloudProvider ("unknown cloud
 * provider %q": nothing registers "aws" from 1.27), wrapped by the KCM's createCloudProvider
 * (cmd/kube-controller-manager/app/cloudproviders.go: "cloud provider could not be initialized: %v").
 */
export function cloudProviderError(flags: ManagerFlags): CloudProviderFailure | undefined {
  const provider = flags.cloudProvider;
  const unknown = unknownProviderForKcm(provider);
  if (flags.component === 'cloud-controller-manager') {
    return provider === 'aws' ? undefined : { message: unknown, afterLeading: false };
  }
  if (provider === '' || provider === 'external') return undefined;
  if (provider === 'aws' && !atLeast(flags.kubernetesVersion, 1, 27)) return undefined;
  return { message: unknown, afterLeading: flags.leaderElect };
}

/** Whether this manager runs the cloud controllers at all (KCM with an in-tree provider, or the CCM). */
export function runsCloudControllers(flags: ManagerFlags): boolean {
  return (
    flags.component === 'cloud-controller-manager' ||
    (flags.cloudProvider !== '' && flags.cloudProvider !== 'external')
  );
}
