import { atLeast, type KubernetesVersion } from 'uproot/core';

export const EBS_CSI_DRIVER_NAME = 'ebs.csi.aws.com';

/** What the twin knows of an EBS-backed PersistentVolume. */
export interface EbsVolume {
  readonly name: string;
  /** `vol-…` */
  readonly volumeId: string;
  readonly source: 'in-tree' | 'csi';
}

/**
 * Attaching an EBS volume. CSI migration for EBS is GA and locked on from 1.25 (pkg/features/kube_features.go:
 * CSIMigrationAWS LockToDefault; the in-tree plugin itself is gone in 1.27), so from 1.25 an in-tree
 * `awsElasticBlockStore` volume is attached by the CSI attacher for `ebs.csi.aws.com` exactly like a CSI one:
 * without the driver's external-attacher nothing answers the VolumeAttachment, and the attach-detach
 * controller reports pkg/volume/csi/csi_attacher.go's "timed out waiting for external-attacher of %v CSI driver
 * to %v volume %v". Returns that message, or undefined when the volume attaches.
 */
export function ebsAttachError(
  volume: EbsVolume,
  version: KubernetesVersion,
  driverInstalled: boolean,
): string | undefined {
  if (driverInstalled) return undefined;
  if (volume.source === 'in-tree' && !atLeast(version, 1, 25)) return undefined;
  return `AttachVolume.Attach failed for volume "${volume.name}" : timed out waiting for external-attacher of ${EBS_CSI_DRIVER_NAME} CSI driver to attach volume ${volume.volumeId}`;
}
