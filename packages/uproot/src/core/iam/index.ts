/** IAM evaluation: the cloud provider's required actions as data, and a simulator over an instance role's policies. */
export {
  CONTROL_PLANE_ACTIONS,
  CONTROL_PLANE_RECOMMENDED_ACTIONS,
  CCM_VERSIONED_ACTIONS,
  ccmVersionedActions,
  type VersionedCcmAction,
  NODE_ACTIONS,
  NODE_EC2_ACTIONS,
  NODE_ECR_ACTIONS,
  ALL_EVALUATED_ACTIONS,
} from './required-actions.js';
export { decodePolicyDocument, statementsOf, type PolicyStatement } from './policy-document.js';
export { evaluateIam, evaluateRole } from './evaluate-role.js';
