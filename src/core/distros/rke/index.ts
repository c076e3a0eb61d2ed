/** RKE (RKE1) planner: cluster.yml, or Rancher's rancher_kubernetes_engine_config form. */
import { InputError } from '../../../errors/index.js';
import type { DistroPlanner } from '../distro.js';
import { isRkeDocument, readRkeCluster, type RkeDefinition } from './rke-cluster.js';
import { planRke } from './rke-planner.js';
import { rkeApplyStep } from './rke-steps.js';
import { rkeApplyStepToText } from './rke-text.js';

export const rkePlanner: DistroPlanner = {
  name: 'rke',
  detect: (documents) => documents.some(isRkeDocument),
  read(files) {
    const [file, ...rest] = files;
    if (!file || rest.length > 0) {
      throw new InputError('UP-PLAN-RKE-FILES', `an RKE plan reads one cluster file, got ${files.length}`, {
        location: { field: '--cluster-file', value: files.map((f) => f.path).join(', ') },
        hint: 'give cluster.yml (or the Rancher cluster YAML) once',
      });
    }
    return readRkeCluster(file);
  },
  plan: (definition, options) => planRke(definition as RkeDefinition, options),
  applyStep: rkeApplyStep,
  applyStepToText: rkeApplyStepToText,
};

export { isRkeDocument, readRkeCluster, type RkeDefinition, type RkeForm } from './rke-cluster.js';
export { rkeApplyStep, RKE_EXTERNAL_PROVIDER } from './rke-steps.js';
export { rkeApplyStepToText } from './rke-text.js';
export * from './effective-config.js';
