import type { XmlObject } from '../protocol/xml.js';
import type { AwsState } from '../state/aws-state.js';
import type { ListenerV2, LoadBalancerV2, TargetGroup } from '../state/elbv2-store.js';

/** ELBv2 resources in the response shapes of the SDK's ELBv2 schema (member names as elements). */
export function loadBalancerXml(lb: LoadBalancerV2): XmlObject {
  return {
    LoadBalancerArn: lb.arn,
    DNSName: lb.dnsName,
    CanonicalHostedZoneId: lb.canonicalHostedZoneId,
    CreatedTime: new Date(lb.createdTime),
    LoadBalancerName: lb.name,
    Scheme: lb.scheme,
    VpcId: lb.vpcId,
    State: { Code: 'active' },
    Type: lb.type,
    AvailabilityZones: lb.subnets.map((s) => ({
      ZoneName: s.zoneName,
      SubnetId: s.subnetId,
      LoadBalancerAddresses: [],
    })),
    SecurityGroups:
      lb.type === 'application' || lb.securityGroupIds.length > 0 ? [...lb.securityGroupIds] : undefined,
    IpAddressType: lb.ipAddressType,
  };
}

export function targetGroupXml(state: AwsState, tg: TargetGroup): XmlObject {
  const hc = tg.healthCheck;
  return {
    TargetGroupArn: tg.arn,
    TargetGroupName: tg.name,
    Protocol: tg.protocol,
    Port: tg.port,
    VpcId: tg.vpcId,
    HealthCheckProtocol: hc.protocol,
    HealthCheckPort: hc.port,
    HealthCheckEnabled: hc.enabled,
    HealthCheckIntervalSeconds: hc.intervalSeconds,
    HealthCheckTimeoutSeconds: hc.timeoutSeconds,
    HealthyThresholdCount: hc.healthyThresholdCount,
    UnhealthyThresholdCount: hc.unhealthyThresholdCount,
    HealthCheckPath: hc.path,
    Matcher: hc.matcher ? { HttpCode: hc.matcher } : undefined,
    LoadBalancerArns: state.elbv2.loadBalancerArnsOf(tg.arn),
    TargetType: tg.targetType,
    IpAddressType: tg.ipAddressType,
  };
}

export function listenerXml(l: ListenerV2): XmlObject {
  return {
    ListenerArn: l.arn,
    LoadBalancerArn: l.loadBalancerArn,
    Port: l.port,
    Protocol: l.protocol,
    Certificates:
      l.certificateArns.length > 0
        ? l.certificateArns.map((CertificateArn) => ({ CertificateArn }))
        : undefined,
    SslPolicy: l.sslPolicy,
    DefaultActions: l.defaultActions.map((a) => ({
      Type: a.type,
      TargetGroupArn: a.targetGroupArn,
      Order: a.order,
      ForwardConfig: a.targetGroupArn
        ? {
            TargetGroups: [{ TargetGroupArn: a.targetGroupArn, Weight: 1 }],
            TargetGroupStickinessConfig: { Enabled: false },
          }
        : undefined,
    })),
  };
}

export function attributesXml(map: ReadonlyMap<string, string>): XmlObject {
  return { Attributes: [...map].map(([Key, Value]) => ({ Key, Value })) };
}
