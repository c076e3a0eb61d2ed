import { paginate } from '../paging/page-token.js';
import { AwsApiError } from '../protocol/aws-api-error.js';
import type { QueryInput } from '../protocol/query-input.js';
import type { XmlObject } from '../protocol/xml.js';
import type { AwsState } from '../state/aws-state.js';
import type { ClassicAttributes, ClassicListener, ClassicLoadBalancer } from '../state/classic-elb-store.js';
import type { ActionContext, ServiceDefinition } from './service-types.js';
import { invalidMarker, pageSize, readTags, result, tagList } from './query-common.js';

function listeners(input: QueryInput): ClassicListener[] {
  return input.structs('Listeners', 'member').map((l) => {
    const protocol = l.requiredString('Protocol').toUpperCase();
    return {
      protocol,
      loadBalancerPort: l.int('LoadBalancerPort') ?? 0,
      instanceProtocol: (l.string('InstanceProtocol') ?? protocol).toUpperCase(),
      instancePort: l.int('InstancePort') ?? 0,
      sslCertificateId: l.string('SSLCertificateId'),
    };
  });
}

function description(state: AwsState, lb: ClassicLoadBalancer): XmlObject {
  const group = lb.securityGroupIds[0] ? state.ec2.securityGroups.get(lb.securityGroupIds[0]) : undefined;
  return {
    LoadBalancerName: lb.name,
    DNSName: lb.dnsName,
    CanonicalHostedZoneName: lb.dnsName,
    CanonicalHostedZoneNameID: lb.canonicalHostedZoneNameId,
    ListenerDescriptions: lb.listeners.map((l) => ({
      Listener: {
        Protocol: l.protocol,
        LoadBalancerPort: l.loadBalancerPort,
        InstanceProtocol: l.instanceProtocol,
        InstancePort: l.instancePort,
        SSLCertificateId: l.sslCertificateId,
      },
      PolicyNames: [],
    })),
    Policies: { AppCookieStickinessPolicies: [], LBCookieStickinessPolicies: [], OtherPolicies: [] },
    BackendServerDescriptions: [],
    AvailabilityZones: lb.availabilityZones,
    Subnets: lb.subnetIds,
    VPCId: lb.vpcId,
    Instances: lb.instanceIds.map((InstanceId) => ({ InstanceId })),
    HealthCheck: {
      Target: lb.healthCheck.target,
      Interval: lb.healthCheck.interval,
      Timeout: lb.healthCheck.timeout,
      UnhealthyThreshold: lb.healthCheck.unhealthyThreshold,
      HealthyThreshold: lb.healthCheck.healthyThreshold,
    },
    SourceSecurityGroup: group ? { OwnerAlias: state.accountId, GroupName: group.name } : undefined,
    SecurityGroups: lb.securityGroupIds,
    CreatedTime: new Date(lb.createdTime),
    Scheme: lb.scheme,
  };
}

function attributesXml(a: ClassicAttributes): XmlObject {
  return {
    CrossZoneLoadBalancing: { Enabled: a.crossZoneLoadBalancing },
    AccessLog: {
      Enabled: a.accessLog.enabled,
      S3BucketName: a.accessLog.s3BucketName,
      EmitInterval: a.accessLog.emitInterval,
      S3BucketPrefix: a.accessLog.s3BucketPrefix,
    },
    ConnectionDraining: { Enabled: a.connectionDraining.enabled, Timeout: a.connectionDraining.timeout },
    ConnectionSettings: { IdleTimeout: a.idleTimeout },
    AdditionalAttributes: [...a.additional].map(([Key, Value]) => ({ Key, Value })),
  };
}

function describeLoadBalancers({ state, input }: ActionContext): string {
  const names = input.list('LoadBalancerNames', 'member');
  const limit = pageSize(input, 'PageSize', 400);
  const all = names.length === 0 ? state.elb.list() : names.map((n) => state.elb.require(n));
  const page = paginate(all, (lb) => lb.seq, {
    listing: 'elb:DescribeLoadBalancers',
    token: input.string('Marker'),
    limit,
    invalid: invalidMarker(),
  });
  return result({
    LoadBalancerDescriptions: page.items.map((lb) => description(state, lb)),
    NextMarker: page.next,
  });
}

function lbArn({ state, input }: ActionContext): string[] {
  const names = input.has('LoadBalancerNames')
    ? input.list('LoadBalancerNames', 'member')
    : [input.string('LoadBalancerName') ?? '*'];
  return names.map(
    (n) => `arn:aws:elasticloadbalancing:${state.region}:${state.accountId}:loadbalancer/${n}`,
  );
}

function modifyAttributes({ state, input }: ActionContext): string {
  const name = input.requiredString('LoadBalancerName');
  const a = input.struct('LoadBalancerAttributes');
  if (!a) throw new AwsApiError('ValidationError', 'LoadBalancerAttributes is required');
  const cz = a.struct('CrossZoneLoadBalancing');
  const log = a.struct('AccessLog');
  const drain = a.struct('ConnectionDraining');
  const conn = a.struct('ConnectionSettings');
  const additional: Record<string, string> = {};
  for (const kv of a.structs('AdditionalAttributes', 'member'))
    additional[kv.requiredString('Key')] = kv.string('Value') ?? '';
  const updated = state.elb.modifyAttributes(name, {
    ...(cz ? { crossZoneLoadBalancing: cz.bool('Enabled') ?? false } : {}),
    ...(log
      ? {
          accessLog: {
            enabled: log.bool('Enabled') ?? false,
            s3BucketName: log.string('S3BucketName'),
            emitInterval: log.int('EmitInterval'),
            s3BucketPrefix: log.string('S3BucketPrefix'),
          },
        }
      : {}),
    ...(drain
      ? {
          connectionDraining: {
            enabled: drain.bool('Enabled') ?? false,
            timeout: drain.int('Timeout') ?? 300,
          },
        }
      : {}),
    ...(conn ? { idleTimeout: conn.int('IdleTimeout') ?? 60 } : {}),
    additional,
  });
  return result({ LoadBalancerName: name, LoadBalancerAttributes: attributesXml(updated) });
}

const instances = (input: QueryInput): string[] =>
  input.structs('Instances', 'member').map((i) => i.requiredString('InstanceId'));

export const elbService: ServiceDefinition = {
  descriptor: {
    name: 'elb',
    signingName: 'elasticloadbalancing',
    version: '2012-06-01',
    namespace: 'http://elasticloadbalancing.amazonaws.com/doc/2012-06-01/',
    protocol: 'query',
    iamPrefix: 'elasticloadbalancing',
  },
  actions: {
    CreateLoadBalancer: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const scheme = input.string('Scheme');
        if (scheme !== undefined && scheme !== 'internal' && scheme !== 'internet-facing') {
          throw new AwsApiError('InvalidScheme', `Invalid scheme: ${scheme}`);
        }
        const lb = state.elb.create({
          name: input.requiredString('LoadBalancerName'),
          scheme,
          listeners: listeners(input),
          subnetIds: input.list('Subnets', 'member'),
          availabilityZones: input.list('AvailabilityZones', 'member'),
          securityGroupIds: input.list('SecurityGroups', 'member'),
          tags: readTags(input),
        });
        return result({ DNSName: lb.dnsName });
      },
    },
    DescribeLoadBalancers: { handle: describeLoadBalancers },
    DeleteLoadBalancer: {
      resources: lbArn,
      handle: ({ state, input }) => {
        state.elb.delete(input.requiredString('LoadBalancerName'));
        return '';
      },
    },
    CreateLoadBalancerListeners: {
      resources: lbArn,
      handle: ({ state, input }) => {
        state.elb.createListeners(input.requiredString('LoadBalancerName'), listeners(input));
        return '';
      },
    },
    DeleteLoadBalancerListeners: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const ports = input.list('LoadBalancerPorts', 'member').map(Number);
        state.elb.deleteListeners(input.requiredString('LoadBalancerName'), ports);
        return '';
      },
    },
    RegisterInstancesWithLoadBalancer: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const all = state.elb.register(input.requiredString('LoadBalancerName'), instances(input));
        return result({ Instances: all.map((InstanceId) => ({ InstanceId })) });
      },
    },
    DeregisterInstancesFromLoadBalancer: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const rest = state.elb.deregister(input.requiredString('LoadBalancerName'), instances(input));
        return result({ Instances: rest.map((InstanceId) => ({ InstanceId })) });
      },
    },
    ConfigureHealthCheck: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const hc = input.struct('HealthCheck');
        if (!hc) throw new AwsApiError('ValidationError', 'HealthCheck is required');
        const check = state.elb.configureHealthCheck(input.requiredString('LoadBalancerName'), {
          target: hc.requiredString('Target'),
          interval: hc.int('Interval') ?? 30,
          timeout: hc.int('Timeout') ?? 5,
          unhealthyThreshold: hc.int('UnhealthyThreshold') ?? 2,
          healthyThreshold: hc.int('HealthyThreshold') ?? 10,
        });
        return result({
          HealthCheck: {
            Target: check.target,
            Interval: check.interval,
            Timeout: check.timeout,
            UnhealthyThreshold: check.unhealthyThreshold,
            HealthyThreshold: check.healthyThreshold,
          },
        });
      },
    },
    DescribeInstanceHealth: {
      handle: ({ state, input }) => {
        const health = state.elb.instanceHealth(input.requiredString('LoadBalancerName'), instances(input));
        return result({
          InstanceStates: health.map((h) => ({
            InstanceId: h.instanceId,
            State: h.state,
            ReasonCode: h.reasonCode,
            Description: h.description,
          })),
        });
      },
    },
    DescribeLoadBalancerAttributes: {
      handle: ({ state, input }) =>
        result({
          LoadBalancerAttributes: attributesXml(
            state.elb.require(input.requiredString('LoadBalancerName')).attributes,
          ),
        }),
    },
    ModifyLoadBalancerAttributes: { resources: lbArn, handle: modifyAttributes },
    ApplySecurityGroupsToLoadBalancer: {
      resources: lbArn,
      handle: ({ state, input }) =>
        result({
          SecurityGroups: [
            ...state.elb.applySecurityGroups(
              input.requiredString('LoadBalancerName'),
              input.list('SecurityGroups', 'member'),
            ),
          ],
        }),
    },
    AttachLoadBalancerToSubnets: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const name = input.requiredString('LoadBalancerName');
        const current = state.elb.require(name).subnetIds;
        const next = [...new Set([...current, ...input.list('Subnets', 'member')])];
        return result({ Subnets: [...state.elb.setSubnets(name, next)] });
      },
    },
    DetachLoadBalancerFromSubnets: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const name = input.requiredString('LoadBalancerName');
        const drop = input.list('Subnets', 'member');
        const next = state.elb.require(name).subnetIds.filter((s) => !drop.includes(s));
        return result({ Subnets: [...state.elb.setSubnets(name, next)] });
      },
    },
    AddTags: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const tags = readTags(input);
        const lbs = input.list('LoadBalancerNames', 'member').map((n) => state.elb.require(n));
        for (const lb of lbs) for (const [k, v] of Object.entries(tags)) lb.tags.set(k, v);
        return '';
      },
    },
    RemoveTags: {
      resources: lbArn,
      handle: ({ state, input }) => {
        const keys = input.structs('Tags', 'member').map((t) => t.requiredString('Key'));
        const lbs = input.list('LoadBalancerNames', 'member').map((n) => state.elb.require(n));
        for (const lb of lbs) for (const k of keys) lb.tags.delete(k);
        return '';
      },
    },
    DescribeTags: {
      handle: ({ state, input }) => {
        const names = input.list('LoadBalancerNames', 'member');
        if (names.length > 20)
          throw new AwsApiError('ValidationError', 'At most 20 load balancer names may be given');
        return result({
          TagDescriptions: names.map((n) => {
            const lb = state.elb.require(n);
            return { LoadBalancerName: lb.name, Tags: tagList(lb.tags) };
          }),
        });
      },
    },
  },
};
