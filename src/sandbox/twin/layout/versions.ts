import { parseKubernetesVersion, type KubernetesVersion } from '../../../core/kubernetes-version/index.js';
import type { Distribution } from '../../scenarios/index.js';

/**
 * Version strings as each distribution shows them: RKE2 `v1.26.15+rke2r1` (the kubelet reports it as is),
 * RKE `v1.26.15-rancher1-1` in cluster.yml (the kubelet reports `v1.26.15`), kubeadm `v1.26.15`.
 */
export interface DistroVersion {
  readonly version: KubernetesVersion;
  /** What cluster definitions hold (`spec.kubernetesVersion`, `kubernetes_version`). */
  readonly configured: string;
  /** `status.nodeInfo.kubeletVersion`. */
  readonly kubelet: string;
  /** The tag of the control-plane images. */
  readonly imageTag: string;
}

export function distroVersion(distribution: Distribution, raw: string): DistroVersion {
  const version = parseKubernetesVersion(raw, 'kubernetesVersion');
  const base = `v${version.major}.${version.minor}.${version.patch}`;
  const suffix = /[-+].*$/.exec(raw.trim())?.[0];
  switch (distribution) {
    case 'rke2': {
      const configured = suffix?.startsWith('+rke2') ? `${base}${suffix}` : `${base}+rke2r1`;
      return { version, configured, kubelet: configured, imageTag: configured.replace('+', '-') };
    }
    case 'rke': {
      const configured = suffix?.startsWith('-rancher') ? `${base}${suffix}` : `${base}-rancher1-1`;
      return { version, configured, kubelet: base, imageTag: `${base}-rancher1` };
    }
    case 'kubeadm':
    case 'none':
      return { version, configured: base, kubelet: base, imageTag: base };
  }
}
