import { InputError } from '../../errors/index.js';
import type { KubernetesVersion } from '../kubernetes-version/index.js';

export const CCM_IMAGE_REPOSITORY = 'registry.k8s.io/provider-aws/cloud-controller-manager';
/** The aws-cloud-controller-manager chart 0.0.11 default: far newer than clusters that still run in-tree AWS. */
export const CHART_DEFAULT_CCM_TAG = 'v1.35.0';

/**
 * cloud-provider-aws releases promoted to registry.k8s.io, one per Kubernetes minor (the CCM's minor should
 * match the cluster's). Sources: kubernetes/k8s.io promotions (#6612: v1.29.2, v1.28.5, v1.27.6, v1.26.11,
 * v1.25.15, v1.24.19, v1.23.20) and cloud-provider-aws release tags. Override with --ccm-image-tag when a newer
 * patch is wanted.
 */
const TAGS: Readonly<Record<number, string>> = {
  21: 'v1.21.7',
  22: 'v1.22.8',
  23: 'v1.23.20',
  24: 'v1.24.19',
  25: 'v1.25.15',
  26: 'v1.26.11',
  27: 'v1.27.6',
  28: 'v1.28.5',
  29: 'v1.29.2',
  30: 'v1.30.2',
};

/** The CCM image tag for a cluster at `version`: the same minor, never newer than the API server. */
export function ccmImageTagFor(version: KubernetesVersion): string {
  if (version.major !== 1 || version.minor < 21) {
    throw new InputError(
      'UP-CCM-VERSION',
      `no aws-cloud-controller-manager with leader migration exists for Kubernetes ${version.raw}`,
      {
        location: { field: 'kubernetesVersion', value: version.raw },
        hint: 'leader migration needs Kubernetes 1.21 or later; upgrade the cluster first',
      },
    );
  }
  return TAGS[version.minor] ?? `v1.${version.minor}.0`;
}

/** The minor a CCM image tag belongs to, or undefined when the tag is not a release tag. */
export function ccmTagMinor(tag: string): number | undefined {
  const m = /^v?1\.(\d+)\./.exec(tag);
  return m ? Number(m[1]) : undefined;
}
