/**
 * What an RKE2 release does with the cloud-provider settings, by version: which provider its components get
 * for `cloud-provider-name`, and whether its built-in cloud controller runs. The sandbox's RKE2 nodes follow
 * these; preflight and the planner judge RKE2 definitions with them.
 */
import { atLeast, type KubernetesVersion } from '../../model/kubernetes-version.js';

/** The first patch of each minor whose `cloud-provider-name: aws` no longer configures the in-tree provider. */
const AWS_NAME_ONLY_FROM: Readonly<Record<number, number>> = { 29: 11, 30: 7, 31: 3 };

/**
 * The `--cloud-provider` RKE2 passes to the kubelet, KCM and (up to v1.32) apiserver for a
 * `cloud-provider-name` ('' for none). `aws` meant the in-tree provider until rancher/rke2#7336 ("Move AWS
 * hostname support behind new flag", v1.29.11, v1.30.7, v1.31.3, v1.32.0: pkg/rke2/rke2_linux.go), after
 * which it only names the node from instance metadata; other names pass through.
 */
export function rke2ComponentProvider(name: string, version: KubernetesVersion): string {
  if (name !== 'aws') return name;
  if (atLeast(version, 1, 32)) return '';
  const from = version.major === 1 ? AWS_NAME_ONLY_FROM[version.minor] : undefined;
  return from !== undefined && version.patch >= from ? '' : 'aws';
}

/**
 * Whether RKE2 passes `--cloud-provider` to the kube-apiserver: up to v1.32; v1.33 dropped it with the flag
 * (commit a9a0c194c "Remove kube-apiserver flags removed by upstream"). A `kube-apiserver-arg` still reaches it.
 */
export function rke2ApiserverGetsCloudProvider(version: KubernetesVersion): boolean {
  return !atLeast(version, 1, 33);
}

/** Names for which RKE2 deploys a bundled provider chart with a CPI, and so disables its own controller. */
const BUNDLED_CPI = new Set(['rancher-vsphere', 'harvester']);

/**
 * Whether an RKE2 server runs its built-in cloud controller (rke2-cloud-provider). `disable-cloud-controller:
 * true` always turns it off. Before v1.36 setting `cloud-provider-name` (any value) or `cloud-provider-config`
 * also did (pkg/rke2/rke2_linux.go initExecutor: DisableCCM = true). rancher/rke2#10351 (v1.36.0+rke2r1,
 * commit be5e5f697 "Add verification before disabling CCM") moved that into validateCloudProvider
 * (pkg/cli/cmds/root.go), which disables it only for bundled providers with a CPI (rancher-vsphere,
 * harvester): with `aws` or `external` the built-in controller now runs next to the provider's CCM.
 */
export function rke2RunsBuiltInCloudController(
  version: KubernetesVersion,
  config: {
    readonly cloudProviderName: string;
    readonly cloudProviderConfig: string;
    readonly disableCloudController: boolean;
  },
): boolean {
  if (config.disableCloudController) return false;
  if (!atLeast(version, 1, 36)) return config.cloudProviderName === '' && config.cloudProviderConfig === '';
  return !BUNDLED_CPI.has(config.cloudProviderName);
}
