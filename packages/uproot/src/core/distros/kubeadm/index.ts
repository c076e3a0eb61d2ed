/** kubeadm-style static pod control planes (seed 003). */
import { InputError } from '../../../errors/index.js';
import type { DistroPlanner } from '../distro.js';
import { kubeadmFacts } from './kubeadm-facts.js';
import { isRecord } from '../../model/json-value.js';
import { documentValue, editYamlText, parseStream } from '../shared/yaml-edit.js';
import { isCcmPod } from './ccm-static-pod.js';
import {
  isKcmManifest,
  manifestRole,
  readKubeadmManifests,
  type KubeadmDefinition,
} from './kubeadm-cluster.js';
import { planKubeadm } from './kubeadm-planner.js';
import { kubeadmApplyStep } from './kubeadm-steps.js';

export const kubeadmPlanner: DistroPlanner = {
  name: 'kubeadm',
  facts: kubeadmFacts,
  detect: (documents) => documents.some(isKcmManifest),
  read: (files) => readKubeadmManifests(files),
  plan: (definition, options) => planKubeadm(definition as KubeadmDefinition, options),
  applyStep: kubeadmApplyStep,
  applyStepToText(stepId, text, options) {
    const values = parseStream(text).map(documentValue);
    const index = values.findIndex(
      (v) => manifestRole(v) !== undefined || isCcmPod(v) || (isRecord(v) && v.kind === 'Role'),
    );
    if (index < 0) {
      throw new InputError(
        'UP-PLAN-KUBEADM-NO-MANIFEST',
        'the text holds no static pod manifest uproot edits',
        {
          hint: 'give a kube-controller-manager, cloud-controller-manager or kube-apiserver manifest',
        },
      );
    }
    const next = kubeadmApplyStep(stepId, values[index], options);
    if (next === values[index] || !isRecord(next)) return text;
    // install-ccm turns a KCM manifest into a new CCM manifest: a new file, not an edit.
    if (isCcmPod(next) && !isCcmPod(values[index])) return editYamlText('{}\n', 0, next);
    return editYamlText(text, index, next);
  },
};

export {
  readKubeadmManifests,
  manifestRole,
  isKcmManifest,
  type KubeadmDefinition,
  type StaticPodManifest,
} from './kubeadm-cluster.js';
export { kubeadmApplyStep } from './kubeadm-steps.js';
export {
  renderCcmPod,
  CCM_MANIFEST_PATH,
  KCM_MANIFEST_PATH,
  LEADER_MIGRATION_FILE,
} from './ccm-static-pod.js';
