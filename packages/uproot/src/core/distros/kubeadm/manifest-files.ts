/** The files a kubeadm plan edits on the nodes, tracked step by step (object and text with comments kept). */
import { stringify } from 'yaml';
import type { Change, StepId } from '../../model/plan-types.js';
import type { StepOptions } from '../distro.js';
import { deepEqual } from '../../model/json-value.js';
import { unifiedDiff } from '../shared/plan-building.js';
import { editYamlText } from '../shared/yaml-edit.js';
import {
  APISERVER_MANIFEST_PATH,
  CCM_MANIFEST_PATH,
  KCM_MANIFEST_PATH,
  KUBEADM_FLAGS_PATH,
} from './ccm-static-pod.js';
import type { KubeadmDefinition, StaticPodManifest } from './kubeadm-cluster.js';
import { kubeadmApplyStep } from './kubeadm-steps.js';

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

/** Each manifest after each step that edits it; a step that leaves a file unchanged keeps its state object. */
export interface ManifestProgression {
  readonly kcm: {
    readonly original: FileState;
    readonly withMigration: FileState;
    readonly rolled: FileState;
  };
  /** `before` has empty text when the cluster has no CCM manifest yet. */
  readonly ccm: {
    readonly before: FileState;
    readonly installed: FileState;
    readonly rolled: FileState;
    readonly final: FileState;
  };
}

export function manifestProgression(def: KubeadmDefinition, options: StepOptions): ManifestProgression {
  const apply = (id: StepId, state: FileState): unknown => kubeadmApplyStep(id, state.object, options);
  const original = manifestState(def.kcm, KCM_MANIFEST_PATH)!;
  const withMigration = advance(original, def.kcm, apply('enable-leader-migration', original));
  const rolled = advance(withMigration, def.kcm, apply('roll-control-plane', withMigration));
  const before = manifestState(def.ccm, CCM_MANIFEST_PATH) ?? {
    path: CCM_MANIFEST_PATH,
    object: undefined,
    text: '',
  };
  // Without a CCM manifest, install-ccm derives the CCM pod from the KCM's.
  const installed = advance(before, def.ccm, apply('install-ccm', def.ccm ? before : withMigration));
  const ccmRolled = advance(installed, def.ccm, apply('roll-control-plane', installed));
  const final = advance(ccmRolled, def.ccm, apply('disable-leader-migration', ccmRolled));
  return {
    kcm: { original, withMigration, rolled },
    ccm: { before, installed, rolled: ccmRolled, final },
  };
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
      `On every node (control plane and workers), set --cloud-provider=${provider} for the kubelet (KUBELET_KUBEADM_ARGS in ${KUBEADM_FLAGS_PATH}), then: systemctl restart kubelet`,
      `kubectl -n kube-system edit configmap kubeadm-config: in ClusterConfiguration set controllerManager.extraArgs.cloud-provider and apiServer.extraArgs.cloud-provider to ${provider}${back ? '' : ' (otherwise the next kubeadm upgrade writes the in-tree flags back)'}`,
      `On each control-plane node, set --cloud-provider=${provider} in ${APISERVER_MANIFEST_PATH} (the kubelet restarts kube-apiserver; one node at a time)`,
    ].join('\n'),
    actions: [
      { type: 'kubelet', flagsFile: KUBEADM_FLAGS_PATH, setFlags: { 'cloud-provider': provider } },
      {
        type: 'edit-kubeadm-config',
        fields: [
          { path: 'controllerManager.extraArgs.cloud-provider', value: provider },
          { path: 'apiServer.extraArgs.cloud-provider', value: provider },
        ],
      },
      {
        type: 'edit-static-pod',
        path: APISERVER_MANIFEST_PATH,
        container: 'kube-apiserver',
        setFlags: { 'cloud-provider': provider },
      },
    ],
  };
}
