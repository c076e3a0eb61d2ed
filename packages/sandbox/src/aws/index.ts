/**
 * The sandbox AWS emulator: one loopback HTTP server that the unmodified AWS SDK v3 clients (EC2, ELB, ELBv2,
 * IAM, STS, Auto Scaling) and IMDSv2 clients talk to as if it were AWS, backed by a seeded, in-memory account.
 */
export { startAwsEmulator, type AwsEmulator, type AwsEmulatorOptions } from './emulator.js';
export { parseImdsPath } from './imds/imds-path.js';
export { hopsFrom, podNetworkAddress, podNetworkAvailable, ImdsNetwork } from './imds/imds-network.js';
export { imdsErrorPage } from './imds/imds-handler.js';
export { sendImdsRequest, type ImdsReply } from './imds/imds-request.js';
export {
  awsSeedSchema,
  instanceStateNames,
  type AwsSeed,
  type ParsedAwsSeed,
  type InstanceStateName,
} from './seed/seed-schema.js';
export { parseAwsSeed } from './seed/parse-seed.js';
export {
  emptyAccountSeed,
  EMPTY_ACCOUNT_IDS,
  type EmptyAccountSeedOptions,
} from './seed/empty-account-seed.js';
export {
  awsEnvironment,
  nodeEnvironment,
  shellExports,
  writeAwsEnv,
  NOT_ON_A_NODE,
} from './environment/aws-environment.js';
export { AwsState } from './state/aws-state.js';
export type {
  Ec2Instance,
  Subnet,
  Vpc,
  RouteTable,
  SecurityGroup,
  SecurityGroupRule,
  InstanceProfileRef,
} from './state/ec2-types.js';
export type { RunInstanceSpec, StateChange } from './state/instance-store.js';
export { isWellFormedInstanceId } from './state/instance-store.js';
export type { IamRole, IamInstanceProfile, IamManagedPolicy } from './state/iam-store.js';
export type { ClassicLoadBalancer, ClassicInstanceState } from './state/classic-elb-store.js';
export type { LoadBalancerV2, TargetGroup, ListenerV2, TargetHealthState } from './state/elbv2-store.js';
export type { AutoScalingGroup, AutoScalingTag } from './state/autoscaling-store.js';
export type { AwsPrincipal, AwsCredentials, CallerIdentity } from './auth/principal.js';
export { SANDBOX_ADMIN_CREDENTIALS } from './auth/credential-store.js';
export {
  FaultInjector,
  throttlingError,
  type FaultRule,
  type FaultEffect,
  type FaultHandle,
  type FaultTarget,
  type FaultFrequency,
} from './faults/fault-injector.js';
export {
  RequestLog,
  type RequestLogEntry,
  type RequestLogQuery,
  type LoggedService,
} from './log/request-log.js';
export { AwsApiError } from './protocol/aws-api-error.js';
