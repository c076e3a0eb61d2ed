/** The files a kubeadm plan edits on the nodes, tracked step by step (object and text with comments kept). */
import { stringify } from 'yaml';
import type { Change } from '../../plan/plan-types.js';
import { deepEqual } from '../shared/json-value.js';
import { unifiedDiff } from '../shared/plan-building.js';
import { editYamlText } from '../shared/yaml-edit.js';
import { APISERVER_MANIFEST_PATH } from './ccm-static-pod.js';
import type { StaticPodManifest } from './kubeadm-cluster.js';

export type WriteFile = Extract<Change, { type: 'write-file' }>;

export interface FileState {
  readonly path: string;
  readonly object: unknown;
  readonly text: string;
}

export function writeFile(path: string, description: string, before: string, after: string): WriteFile {
  return {
    type: 'write-file',
    description,
    path,
    content: after,
    diff: unifiedDiff(path.replace(/^\//, ''), before, after),
  };
}

export function manifestState(m: StaticPodManifest | undefined, path: string): FileState | undefined {
  return m ? { path, object: m.pod, text: m.file.text } : undefined;
}

/** The file after a step: the user's text edited in place, or a new manifest rendered. */
export function advance(state: FileState, m: StaticPodManifest | undefined, next: unknown): FileState {
  if (deepEqual(state.object, next)) return state;
  const text = m ? editYamlText(state.text, m.docIndex, next) : stringify(next, { lineWidth: 0 });
  return { path: state.path, object: next, text };
}

/** What uproot cannot edit from the manifests: kubelet flags on every node and kubeadm's stored configuration. */
export function kubeletAndKubeadmConfigChange(apiserverGiven: boolean): Change {
  return {
    type: 'manual',
    description: "Switch the kubelet and kubeadm's stored configuration to the external provider",
    instructions: [
      'On every node (control plane and workers), set --cloud-provider=external for the kubelet (KUBELET_KUBEADM_ARGS in /var/lib/kubelet/kubeadm-flags.env), then: systemctl restart kubelet',
      'kubectl -n kube-system edit configmap kubeadm-config: in ClusterConfiguration set controllerManager.extraArgs.cloud-provider and apiServer.extraArgs.cloud-provider to external (otherwise the next kubeadm upgrade writes the in-tree flags back)',
      ...(apiserverGiven
        ? []
        : [
            `On each control-plane node, set --cloud-provider=external in ${APISERVER_MANIFEST_PATH} (the kube-apiserver manifest was not given to uproot)`,
          ]),
    ].join('\n'),
  };
}
