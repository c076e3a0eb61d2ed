/** Simulated kube-controller-manager and cloud-controller-manager processes with real cloud controllers. */
export {
  startSimulatedManager,
  type SimulatedManager,
  type SimulatedManagerOptions,
} from './simulated-manager.js';
export { managerIdentity, uuidFrom } from './manager-identity.js';
export { controllerDescriptors, CONTROLLER_SERVICE_ACCOUNTS } from './controller-descriptors.js';
export { cloudControllerSettings, cloudProviderError, runsCloudControllers } from './manager-settings.js';
export { imdsCredentials } from './imds-credentials.js';
