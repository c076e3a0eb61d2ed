import { AwsApiError } from '../protocol/aws-api-error.js';
import type { TagMap } from './ec2-types.js';

/** The ELBv2 resources the emulator keeps, their AWS defaults, and the not-found errors. */
export type LoadBalancerType = 'network' | 'application';

export interface LoadBalancerV2 {
  readonly arn: string;
  readonly name: string;
  readonly seq: number;
  readonly type: LoadBalancerType;
  readonly scheme: 'internet-facing' | 'internal';
  readonly dnsName: string;
  readonly canonicalHostedZoneId: string;
  readonly createdTime: number;
  readonly vpcId: string;
  readonly subnets: readonly { readonly subnetId: string; readonly zoneName: string }[];
  readonly securityGroupIds: readonly string[];
  readonly ipAddressType: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly tags: TagMap;
}

export interface TargetGroupHealthCheck {
  readonly protocol: string;
  readonly port: string;
  readonly enabled: boolean;
  readonly intervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly healthyThresholdCount: number;
  readonly unhealthyThresholdCount: number;
  readonly path?: string | undefined;
  readonly matcher?: string | undefined;
}

export interface Target {
  readonly id: string;
  readonly port: number;
  readonly availabilityZone?: string | undefined;
}

export type TargetHealthState = 'initial' | 'healthy' | 'unhealthy' | 'unused' | 'draining' | 'unavailable';

export interface TargetGroup {
  readonly arn: string;
  readonly name: string;
  readonly seq: number;
  readonly protocol: string;
  readonly port: number;
  readonly vpcId: string;
  readonly targetType: string;
  readonly ipAddressType: string;
  readonly healthCheck: TargetGroupHealthCheck;
  readonly targets: readonly Target[];
  readonly attributes: ReadonlyMap<string, string>;
  readonly tags: TagMap;
  readonly healthOverrides: ReadonlyMap<string, TargetHealthState>;
}

export interface ListenerAction {
  readonly type: string;
  readonly targetGroupArn?: string | undefined;
  readonly order?: number | undefined;
}

export interface ListenerV2 {
  readonly arn: string;
  readonly seq: number;
  readonly loadBalancerArn: string;
  readonly port: number;
  readonly protocol: string;
  readonly defaultActions: readonly ListenerAction[];
  readonly sslPolicy?: string | undefined;
  readonly certificateArns: readonly string[];
}

export interface TargetHealthDescription {
  readonly target: Target;
  readonly healthCheckPort: string;
  readonly state: TargetHealthState;
  readonly reason?: string | undefined;
  readonly description?: string | undefined;
}

export const NLB_ATTRIBUTES: readonly [string, string][] = [
  ['deletion_protection.enabled', 'false'],
  ['load_balancing.cross_zone.enabled', 'false'],
  ['access_logs.s3.enabled', 'false'],
  ['access_logs.s3.bucket', ''],
  ['access_logs.s3.prefix', ''],
  ['ipv6.deny_all_igw_traffic', 'false'],
  ['dns_record.client_routing_policy', 'any_availability_zone'],
];
export const ALB_ATTRIBUTES: readonly [string, string][] = [
  ['deletion_protection.enabled', 'false'],
  ['idle_timeout.timeout_seconds', '60'],
  ['routing.http2.enabled', 'true'],
  ['access_logs.s3.enabled', 'false'],
  ['access_logs.s3.bucket', ''],
  ['access_logs.s3.prefix', ''],
  ['routing.http.drop_invalid_header_fields.enabled', 'false'],
];
export const TARGET_GROUP_ATTRIBUTES: readonly [string, string][] = [
  ['deregistration_delay.timeout_seconds', '300'],
  ['deregistration_delay.connection_termination.enabled', 'false'],
  ['proxy_protocol_v2.enabled', 'false'],
  ['preserve_client_ip.enabled', 'true'],
  ['stickiness.enabled', 'false'],
  ['stickiness.type', 'source_ip'],
  ['load_balancing.cross_zone.enabled', 'use_load_balancer_configuration'],
  ['target_health_state.unhealthy.connection_termination.enabled', 'true'],
];

/** us-east-1's hosted zones: network load balancers differ from application ones. */
export const NLB_ZONES: Readonly<Record<string, string>> = {
  'us-east-1': 'Z26RNL4JYFTOTI',
  'us-west-2': 'Z18D5FSROUN65G',
};
export const ALB_ZONES: Readonly<Record<string, string>> = {
  'us-east-1': 'Z35SXDOTRQ7X7K',
  'us-west-2': 'Z1H1FL5HABSF5',
};

export const lbNotFound = (): AwsApiError =>
  new AwsApiError('LoadBalancerNotFound', 'One or more load balancers not found');
export const targetGroupNotFound = (): AwsApiError =>
  new AwsApiError('TargetGroupNotFound', 'One or more target groups not found');
export const listenerNotFound = (): AwsApiError =>
  new AwsApiError('ListenerNotFound', 'One or more listeners not found');
