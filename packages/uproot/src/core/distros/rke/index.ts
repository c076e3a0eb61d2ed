/** RKE (RKE1) planner: cluster.yml, Rancher's rancher_kubernetes_engine_config form, or Rancher's v3 Cluster. */
import type { DistroPlanner } from '../distro.js';
import { rkeFacts } from './rke-facts.js';
import { singleFile } from '../shared/yaml-source.js';
import { isRkeDocument, readRkeCluster, type RkeDefinition } from './rke-cluster.js';
import { planRke } from './rke-planner.js';
import { rkeApplyStep } from './rke-steps.js';
import { rkeApplyStepToText } from './rke-text.js';

export const rkePlanner: DistroPlanner = {
  name: 'rke',
  facts: rkeFacts,
  detect: (documents) => documents.some(isRkeDocument),
  read: (files) =>
    readRkeCluster(
      singleFile(files, 'UP-PLAN-RKE-FILES', {
        distro: 'RKE',
        hint: 'give cluster.yml (or the Rancher cluster YAML) once',
      }),
    ),
  plan: (definition, options) => planRke(definition as RkeDefinition, options),
  applyStep: rkeApplyStep,
  applyStepToText: rkeApplyStepToText,
};

export { isRkeDocument, readRkeCluster, type RkeDefinition, type RkeForm } from './rke-cluster.js';
export { rkeApplyStep, RKE_EXTERNAL_PROVIDER } from './rke-steps.js';
export { rkeApplyStepToText } from './rke-text.js';
export * from './effective-config.js';
export {
  MANAGEMENT_CLUSTER,
  isManagementRkeCluster,
  managementView,
  withManagementView,
} from './rke-management-form.js';
export {
  externalAwsToolingFinding,
  knowsExternalAws,
  rkeVersionFromOutput,
  type RkeTooling,
} from './rke-tooling.js';
