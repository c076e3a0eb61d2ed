/**
 * The AWS cloud config (`--cloud-config`): which settings each aws-cloud-controller-manager release reads,
 * parsing and rendering it, and carrying the in-tree provider's settings into the CCM.
 */
export {
  CCM_GLOBAL_KEYS,
  SERVICE_OVERRIDE_KEYS,
  canonicalGlobalKey,
  configuredClusterId,
  ccmReadsGlobalKey,
  parseAwsCloudConfig,
  renderAwsCloudConfig,
  type AwsCloudConfig,
} from './aws-cloud-config.js';
export {
  carryCloudConfig,
  rkeAwsCloudProviderConfig,
  rkeAwsCloudProviderYaml,
  type CloudConfigCarry,
} from './carry-over.js';
