import { parseKubernetesVersion, type KubernetesVersion } from 'uproot/core';
import { imagePullError } from '../components/image-pull.js';
import { ebsAttachError, type EbsVolume } from '../components/volume-attach.js';
import { isRecord, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import type { NodeAgent } from './node-agent.js';

/** The DaemonSet the twin runs as the EBS CSI driver (what preflight looks for, too). */
export const EBS_CSI_NODE_DAEMONSET = 'ebs-csi-node';

/** What keeps a pod from running on its node; `key` compares two verdicts ('' when nothing does). */
export interface PodBlockers {
  readonly key: string;
  /** The first volume that cannot be attached: its name in the pod and the attach-detach controller's error. */
  readonly attach: { readonly volume: string; readonly error: string } | undefined;
  /** Per container: the pull error of its image. */
  readonly pulls: ReadonlyMap<string, string>;
}

function version(raw: string | undefined): KubernetesVersion | undefined {
  try {
    return raw ? parseKubernetesVersion(raw, 'kubeletVersion') : undefined;
  } catch {
    return undefined;
  }
}

/** The EBS volume behind a pod volume (through its claim), if it is one. */
function ebsVolumeOf(
  kube: TwinKube,
  namespace: string,
  volume: Record<string, unknown>,
): EbsVolume | undefined {
  const claim = isRecord(volume.persistentVolumeClaim) ? volume.persistentVolumeClaim.claimName : undefined;
  if (typeof claim !== 'string') return undefined;
  const pvc = kube.get(R.persistentvolumeclaims, namespace, claim);
  const pvName = isRecord(pvc?.spec) ? pvc.spec.volumeName : undefined;
  const pv = typeof pvName === 'string' ? kube.get(R.persistentvolumes, undefined, pvName) : undefined;
  const spec = isRecord(pv?.spec) ? pv.spec : {};
  if (isRecord(spec.awsElasticBlockStore) && typeof spec.awsElasticBlockStore.volumeID === 'string') {
    const id = spec.awsElasticBlockStore.volumeID;
    return { name: String(pvName), volumeId: id.slice(id.lastIndexOf('/') + 1), source: 'in-tree' };
  }
  if (
    isRecord(spec.csi) &&
    spec.csi.driver === 'ebs.csi.aws.com' &&
    typeof spec.csi.volumeHandle === 'string'
  )
    return { name: String(pvName), volumeId: spec.csi.volumeHandle, source: 'csi' };
  return undefined;
}

/** Judges a pod against its node's kubelet (version, flags, runtime) and the cluster's EBS CSI driver. */
export function podBlockers(kube: TwinKube, pod: KubeObject, agent: NodeAgent): PodBlockers {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const namespace = pod.metadata?.namespace ?? 'default';
  const kubelet = agent.runningConfig?.kubelet;
  const v = version(kubelet?.version);
  const pulls = new Map<string, string>();
  let attach: PodBlockers['attach'];
  if (v) {
    const driver = kube.get(R.daemonsets, 'kube-system', EBS_CSI_NODE_DAEMONSET) !== undefined;
    const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isRecord) : [];
    for (const volume of volumes) {
      const ebs = ebsVolumeOf(kube, namespace, volume);
      const error = ebs ? ebsAttachError(ebs, v, driver) : undefined;
      if (error) {
        attach = { volume: String(volume.name), error };
        break;
      }
    }
    const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
    for (const c of containers) {
      const error = imagePullError(
        String(c.image ?? ''),
        { version: v, args: kubelet?.args ?? [] },
        agent.containerRuntimeVersion,
      );
      if (error) pulls.set(String(c.name), error);
    }
  }
  const key = attach || pulls.size > 0 ? JSON.stringify([attach, [...pulls]]) : '';
  return { key, attach, pulls };
}
