import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/kube-types.js';
import type { StaticPodConfig } from './node-config.js';

/**
 * The mirror pod a kubelet creates in the API for a static pod: `<component>-<node>` in kube-system, with
 * the config-hash annotations and the Node as owner, so `kubectl get pods -n kube-system` and uproot's
 * gates see the control plane's real command and flags.
 */

export function staticPodName(component: string, nodeName: string): string {
  return `${component}-${nodeName}`;
}

export function staticPodHash(pod: StaticPodConfig): string {
  return createHash('sha256')
    .update(JSON.stringify([pod.image, pod.command, pod.args, pod.volumes]))
    .digest('hex')
    .slice(0, 32);
}

export function mirrorPodObject(
  pod: StaticPodConfig,
  nodeName: string,
  nodeUid: string | undefined,
  now: string,
): KubeObject {
  const hash = staticPodHash(pod);
  const container: Record<string, unknown> = {
    name: pod.component,
    image: pod.image,
    imagePullPolicy: 'IfNotPresent',
    command: [...pod.command],
    resources: { requests: { cpu: pod.component === 'kube-apiserver' ? '250m' : '200m' } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
  if (pod.args.length > 0) container.args = [...pod.args];
  if (pod.volumes.length > 0) {
    container.volumeMounts = pod.volumes.map((v) => ({
      name: v.name,
      mountPath: v.mountPath,
      readOnly: true,
    }));
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: staticPodName(pod.component, nodeName),
      namespace: 'kube-system',
      labels: { component: pod.component, tier: 'control-plane' },
      annotations: {
        'kubernetes.io/config.hash': hash,
        'kubernetes.io/config.mirror': hash,
        'kubernetes.io/config.seen': now,
        'kubernetes.io/config.source': 'file',
      },
      ...(nodeUid
        ? {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid, controller: true },
            ],
          }
        : {}),
    },
    spec: {
      nodeName,
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      priority: 2000001000,
      containers: [container],
      tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
      ...(pod.volumes.length > 0
        ? {
            volumes: pod.volumes.map((v) => ({
              name: v.name,
              hostPath: { path: v.hostPath, ...(v.type ? { type: v.type } : {}) },
            })),
          }
        : {}),
    },
  };
}
