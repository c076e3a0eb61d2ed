import type { KubernetesVersion } from '../../model/kubernetes-version.js';

/**
 * With `cloud-provider-name: aws`, RKE2 names a node after instance metadata's `local-hostname`. Until the
 * releases below it asked with a plain IMDSv1 GET (pkg/rke2/rke2_linux.go hostnameFromMetadataEndpoint), so
 * on instances with `HttpTokens: required` the answer is 401 and RKE2 falls back to `hostname -f`. IMDSv2
 * came with rancher/rke2#7343 (commit de8240ab, v1.32.0) and its backports: #7356 (v1.29.11+rke2r1),
 * v1.30.7+rke2r1, #7354 (v1.31.3+rke2r1). The 1.28 line and older never got it.
 */
export const RKE2_IMDSV2_NODE_NAME_RELEASES: readonly { readonly minor: number; readonly patch: number }[] = [
  { minor: 29, patch: 11 },
  { minor: 30, patch: 7 },
  { minor: 31, patch: 3 },
  { minor: 32, patch: 0 },
];

/** True when this RKE2 release reads its node name from instance metadata with an IMDSv2 token. */
export function rke2NodeNameUsesImdsV2(version: KubernetesVersion): boolean {
  if (version.major !== 1) return version.major > 1;
  if (version.minor > 32) return true;
  const fixed = RKE2_IMDSV2_NODE_NAME_RELEASES.find((r) => r.minor === version.minor);
  return fixed !== undefined && version.patch >= fixed.patch;
}

/** `v1.29.11+rke2r1`: the first release of the version's minor line with the fix, if there is one. */
export function rke2ImdsV2FixFor(version: KubernetesVersion): string | undefined {
  const fixed = RKE2_IMDSV2_NODE_NAME_RELEASES.find((r) => r.minor === version.minor);
  if (fixed) return `v1.${fixed.minor}.${fixed.patch}+rke2r1`;
  return version.minor > 32 ? undefined : 'v1.29.11+rke2r1';
}
