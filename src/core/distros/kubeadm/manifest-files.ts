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

/**
 * What uproot leaves to a person: kubelet flags on every node, kubeadm's stored configuration, and the
 * kube-apiserver flag (its manifest differs per node, so no single file can be written to all).
 * `provider` is where they go: external for the migration, aws again for its rollback.
 */
export function kubeletAndKubeadmConfigChange(provider: 'external' | 'aws' = 'external'): Change {
  const back = provider === 'aws';
  return {
    type: 'manual',
    description: back
      ? "Switch the kubelet and kubeadm's stored configuration back to the in-tree provider"
      : "Switch the kubelet and kubeadm's stored configuration to the external provider",
    instructions: [
      `On every node (control plane and workers), set --cloud-provider=${provider} for the kubelet (KUBELET_KUBEADM_ARGS in /var/lib/kubelet/kubeadm-flags.env), then: systemctl restart kubelet`,
      `kubectl -n kube-system edit configmap kubeadm-config: in ClusterConfiguration set controllerManager.extraArgs.cloud-provider and apiServer.extraArgs.cloud-provider to ${provider}${back ? '' : ' (otherwise the next kubeadm upgrade writes the in-tree flags back)'}`,
      `On each control-plane node, set --cloud-provider=${provider} in ${APISERVER_MANIFEST_PATH} (the kubelet restarts kube-apiserver; one node at a time)`,
    ].join('\n'),
  };
}
