import { atLeast } from '../../core/kubernetes-version/index.js';
import { parseGoBool, type ManagerFlags } from '../../election/index.js';
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

/**
 * Whether the manager can run with its --cloud-provider: the CCM only knows `aws` here; the KCM runs the
 * in-tree provider `aws` up to 1.26 (the provider was removed from the tree in 1.27) or `external`/none.
 * Returns the start-up error, as the managers print it, or undefined.
 */
export function cloudProviderError(flags: ManagerFlags): string | undefined {
  const provider = flags.cloudProvider;
  if (flags.component === 'cloud-controller-manager') {
    return provider === 'aws'
      ? undefined
      : `cloud provider could not be initialized: unknown cloud provider ${JSON.stringify(provider)}`;
  }
  if (provider === '' || provider === 'external') return undefined;
  if (provider === 'aws' && !atLeast(flags.kubernetesVersion, 1, 27)) return undefined;
  return `cloud provider could not be initialized: unknown cloud provider ${JSON.stringify(provider)}`;
}

/** Whether this manager runs the cloud controllers at all (KCM with an in-tree provider, or the CCM). */
export function runsCloudControllers(flags: ManagerFlags): boolean {
  return (
    flags.component === 'cloud-controller-manager' ||
    (flags.cloudProvider !== '' && flags.cloudProvider !== 'external')
  );
}
