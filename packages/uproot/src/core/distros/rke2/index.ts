/** RKE2 (Rancher provisioning v2) planner. */
import type { DistroPlanner } from '../distro.js';
import { rke2Facts } from './rke2-facts.js';
import { singleFile } from '../shared/yaml-source.js';
import { findClusters, readRke2Cluster, type Rke2Definition } from './rke2-cluster.js';
import { planRke2 } from './rke2-planner.js';
import { rke2ApplyStep } from './rke2-steps.js';
import { rke2ApplyStepToText } from './rke2-text.js';

export const rke2Planner: DistroPlanner = {
  name: 'rke2',
  facts: rke2Facts,
  detect: (documents) => findClusters(documents).length > 0,
  read: (files) =>
    readRke2Cluster(
      singleFile(files, 'UP-PLAN-RKE2-FILES', {
        distro: 'RKE2',
        hint: 'give the file with the Rancher provisioning Cluster once',
      }),
    ),
  plan: (definition, options) => planRke2(definition as Rke2Definition, options),
  applyStep: rke2ApplyStep,
  applyStepToText: rke2ApplyStepToText,
};

export { readRke2Cluster, findClusters, isProvisioningCluster, type Rke2Definition } from './rke2-cluster.js';
export { rke2ApplyStep, addArgsForRole, removeArgs } from './rke2-steps.js';
export { rke2ApplyStepToText } from './rke2-text.js';
export * from './effective-config.js';
export * from './machine-selector.js';
export * from './rke2-releases.js';
export * from './imds-node-name.js';
