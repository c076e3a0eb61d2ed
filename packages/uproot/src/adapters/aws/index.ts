/** AWS adapter: SDK v3 clients and the batched reads behind preflight's AWS snapshot. */
export { createAwsClients, endpointFor, type AwsClients, type AwsClientOptions } from './aws-clients.js';
export { readAwsSnapshot, type AwsSnapshotOptions } from './aws-snapshot.js';
export { awsFailureKind, awsFailureReason, type AwsFailureKind } from './aws-errors.js';
export { resolveRegion } from './region.js';
export { FILTER_VALUES_PER_CALL } from './ec2-reader.js';
export { readVpcDhcp } from './vpc-dhcp-reader.js';
export { PREFLIGHT_AWS_ACTIONS } from './preflight-actions.js';
