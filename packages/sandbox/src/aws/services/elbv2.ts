import { paginate } from '../paging/page-token.js';
import { AwsApiError } from '../protocol/aws-api-error.js';
import type { QueryInput } from '../protocol/query-input.js';
import {
  lbNotFound,
  targetGroupNotFound,
  type ListenerAction,
  type TargetGroupHealthCheck,
} from '../state/elbv2-store.js';
import type { ActionContext, ActionTable, ServiceDefinition } from './service-types.js';
import { attributesXml, listenerXml, loadBalancerXml, targetGroupXml } from './elbv2-xml.js';
import { invalidMarker, pageSize, readTags, result, tagList } from './query-common.js';

function actions(input: QueryInput): ListenerAction[] {
  return input.structs('DefaultActions', 'member').map((a) => ({
    type: a.requiredString('Type'),
    targetGroupArn:
      a.string('TargetGroupArn') ??
      a.struct('ForwardConfig')?.structs('TargetGroups', 'member')[0]?.string('TargetGroupArn'),
    order: a.int('Order'),
  }));
}

function healthCheckChange(input: QueryInput): Partial<TargetGroupHealthCheck> {
  return {
    protocol: input.string('HealthCheckProtocol'),
    port: input.string('HealthCheckPort'),
    enabled: input.bool('HealthCheckEnabled'),
    intervalSeconds: input.int('HealthCheckIntervalSeconds'),
    timeoutSeconds: input.int('HealthCheckTimeoutSeconds'),
    healthyThresholdCount: input.int('HealthyThresholdCount'),
    unhealthyThresholdCount: input.int('UnhealthyThresholdCount'),
    path: input.string('HealthCheckPath'),
    matcher: input.string('Matcher.HttpCode'),
  };
}

function targets(input: QueryInput): { id: string; port?: number | undefined }[] {
  return input.structs('Targets', 'member').map((t) => ({ id: t.requiredString('Id'), port: t.int('Port') }));
}

function keyValues(input: QueryInput): { key: string; value: string }[] {
  return input
    .structs('Attributes', 'member')
    .map((a) => ({ key: a.requiredString('Key'), value: a.string('Value') ?? '' }));
}

function describeLoadBalancers({ state, input }: ActionContext): string {
  const arns = input.list('LoadBalancerArns', 'member');
  const names = input.list('Names', 'member');
  if (arns.length > 0 && names.length > 0) {
    throw new AwsApiError(
      'ValidationError',
      'Load balancer names and load balancer ARNs cannot be specified at the same time',
    );
  }
  const limit = pageSize(input, 'PageSize', 400);
  let selected = state.elbv2.loadBalancers();
  if (arns.length > 0) selected = arns.map((a) => state.elbv2.requireLoadBalancer(a));
  if (names.length > 0) {
    selected = names.map((n) => {
      const lb = state.elbv2.loadBalancerByName(n);
      if (!lb) throw lbNotFound();
      return lb;
    });
  }
  const page = paginate(selected, (lb) => lb.seq, {
    listing: 'elbv2:DescribeLoadBalancers',
    token: input.string('Marker'),
    limit,
    invalid: invalidMarker(),
  });
  return result({ LoadBalancers: page.items.map(loadBalancerXml), NextMarker: page.next });
}

function describeTargetGroups({ state, input }: ActionContext): string {
  const lbArn = input.string('LoadBalancerArn');
  const arns = input.list('TargetGroupArns', 'member');
  const names = input.list('Names', 'member');
  const limit = pageSize(input, 'PageSize', 400);
  let selected = state.elbv2.targetGroups();
  if (lbArn !== undefined) {
    state.elbv2.requireLoadBalancer(lbArn);
    selected = selected.filter((tg) => state.elbv2.loadBalancerArnsOf(tg.arn).includes(lbArn));
  }
  if (arns.length > 0) {
    const wanted = arns.map((a) => state.elbv2.requireTargetGroup(a));
    selected = selected.filter((tg) => wanted.includes(tg));
  }
  if (names.length > 0) {
    const wanted = names.map((n) => {
      const tg = state.elbv2.targetGroupByName(n);
      if (!tg) throw targetGroupNotFound();
      return tg;
    });
    selected = selected.filter((tg) => wanted.includes(tg));
  }
  const page = paginate(selected, (tg) => tg.seq, {
    listing: 'elbv2:DescribeTargetGroups',
    token: input.string('Marker'),
    limit,
    invalid: invalidMarker(),
  });
  return result({ TargetGroups: page.items.map((tg) => targetGroupXml(state, tg)), NextMarker: page.next });
}

function describeListeners({ state, input }: ActionContext): string {
  const lbArn = input.string('LoadBalancerArn');
  const arns = input.list('ListenerArns', 'member');
  if (lbArn === undefined && arns.length === 0) {
    throw new AwsApiError('ValidationError', 'You must specify either listener ARNs or a load balancer ARN');
  }
  if (lbArn !== undefined) state.elbv2.requireLoadBalancer(lbArn);
  const selected =
    arns.length > 0
      ? arns.map((a) => state.elbv2.requireListener(a))
      : state.elbv2.listeners().filter((l) => l.loadBalancerArn === lbArn);
  const page = paginate(selected, (l) => l.seq, {
    listing: 'elbv2:DescribeListeners',
    token: input.string('Marker'),
    limit: pageSize(input, 'PageSize', 400),
    invalid: invalidMarker(),
  });
  return result({ Listeners: page.items.map(listenerXml), NextMarker: page.next });
}

const lbResource = ({ input }: ActionContext): string[] => [input.string('LoadBalancerArn') ?? '*'];
const tgResource = ({ input }: ActionContext): string[] => [input.string('TargetGroupArn') ?? '*'];
const listenerResource = ({ input }: ActionContext): string[] => [input.string('ListenerArn') ?? '*'];
const taggedResources = ({ input }: ActionContext): string[] => input.list('ResourceArns', 'member');

const actionTable: ActionTable = {
  CreateLoadBalancer: {
    resources: ({ state, input }) => [
      `arn:aws:elasticloadbalancing:${state.region}:${state.accountId}:loadbalancer/${input.string('Type') === 'network' ? 'net' : 'app'}/${input.string('Name') ?? '*'}/*`,
    ],
    handle: ({ state, input }) => {
      const type = input.string('Type') ?? 'application';
      if (type !== 'network' && type !== 'application') {
        throw new AwsApiError(
          'ValidationError',
          `Load balancer type '${type}' is not supported by the sandbox`,
        );
      }
      const scheme = input.string('Scheme') ?? 'internet-facing';
      if (scheme !== 'internet-facing' && scheme !== 'internal')
        throw new AwsApiError('InvalidScheme', `Invalid scheme ${scheme}`);
      const subnetIds = [
        ...input.list('Subnets', 'member'),
        ...input.structs('SubnetMappings', 'member').map((m) => m.requiredString('SubnetId')),
      ];
      const lb = state.elbv2.createLoadBalancer({
        name: input.requiredString('Name'),
        type,
        scheme,
        subnetIds,
        securityGroupIds: input.list('SecurityGroups', 'member'),
        ipAddressType: input.string('IpAddressType'),
        tags: readTags(input),
      });
      return result({ LoadBalancers: [loadBalancerXml(lb)] });
    },
  },
  DescribeLoadBalancers: { handle: describeLoadBalancers },
  DeleteLoadBalancer: {
    resources: lbResource,
    handle: ({ state, input }) => {
      state.elbv2.deleteLoadBalancer(input.requiredString('LoadBalancerArn'));
      return '';
    },
  },
  DescribeLoadBalancerAttributes: {
    handle: ({ state, input }) =>
      result(
        attributesXml(state.elbv2.requireLoadBalancer(input.requiredString('LoadBalancerArn')).attributes),
      ),
  },
  ModifyLoadBalancerAttributes: {
    resources: lbResource,
    handle: ({ state, input }) => {
      const lb = state.elbv2.requireLoadBalancer(input.requiredString('LoadBalancerArn'));
      state.elbv2.modifyAttributes(lb.attributes as Map<string, string>, keyValues(input), 'Load balancer');
      return result(attributesXml(lb.attributes));
    },
  },
  SetSecurityGroups: {
    resources: lbResource,
    handle: ({ state, input }) =>
      result({
        SecurityGroupIds: [
          ...state.elbv2.setSecurityGroups(
            input.requiredString('LoadBalancerArn'),
            input.list('SecurityGroups', 'member'),
          ),
        ],
      }),
  },
  CreateTargetGroup: {
    resources: ({ state, input }) => [
      `arn:aws:elasticloadbalancing:${state.region}:${state.accountId}:targetgroup/${input.string('Name') ?? '*'}/*`,
    ],
    handle: ({ state, input }) => {
      const change = healthCheckChange(input);
      const tg = state.elbv2.createTargetGroup({
        name: input.requiredString('Name'),
        protocol: input.string('Protocol'),
        port: input.int('Port'),
        vpcId: input.string('VpcId'),
        targetType: input.string('TargetType'),
        healthCheck: Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)),
        tags: readTags(input),
      });
      return result({ TargetGroups: [targetGroupXml(state, tg)] });
    },
  },
  DescribeTargetGroups: { handle: describeTargetGroups },
  ModifyTargetGroup: {
    resources: tgResource,
    handle: ({ state, input }) => {
      const tg = state.elbv2.modifyTargetGroup(
        input.requiredString('TargetGroupArn'),
        healthCheckChange(input),
      );
      return result({ TargetGroups: [targetGroupXml(state, tg)] });
    },
  },
  DeleteTargetGroup: {
    resources: tgResource,
    handle: ({ state, input }) => {
      state.elbv2.deleteTargetGroup(input.requiredString('TargetGroupArn'));
      return '';
    },
  },
  DescribeTargetGroupAttributes: {
    handle: ({ state, input }) =>
      result(
        attributesXml(state.elbv2.requireTargetGroup(input.requiredString('TargetGroupArn')).attributes),
      ),
  },
  ModifyTargetGroupAttributes: {
    resources: tgResource,
    handle: ({ state, input }) => {
      const tg = state.elbv2.requireTargetGroup(input.requiredString('TargetGroupArn'));
      state.elbv2.modifyAttributes(tg.attributes as Map<string, string>, keyValues(input), 'Target group');
      return result(attributesXml(tg.attributes));
    },
  },
  RegisterTargets: {
    resources: tgResource,
    handle: ({ state, input }) => {
      state.elbv2.registerTargets(input.requiredString('TargetGroupArn'), targets(input));
      return '';
    },
  },
  DeregisterTargets: {
    resources: tgResource,
    handle: ({ state, input }) => {
      state.elbv2.deregisterTargets(input.requiredString('TargetGroupArn'), targets(input));
      return '';
    },
  },
  DescribeTargetHealth: {
    handle: ({ state, input }) => {
      const health = state.elbv2.targetHealth(input.requiredString('TargetGroupArn'), targets(input));
      return result({
        TargetHealthDescriptions: health.map((h) => ({
          Target: { Id: h.target.id, Port: h.target.port, AvailabilityZone: h.target.availabilityZone },
          HealthCheckPort: h.healthCheckPort,
          TargetHealth: { State: h.state, Reason: h.reason, Description: h.description },
        })),
      });
    },
  },
  CreateListener: {
    resources: lbResource,
    handle: ({ state, input }) => {
      const listener = state.elbv2.createListener({
        loadBalancerArn: input.requiredString('LoadBalancerArn'),
        port: input.int('Port') ?? 0,
        protocol: input.requiredString('Protocol'),
        defaultActions: actions(input),
        sslPolicy: input.string('SslPolicy'),
        certificateArns: input
          .structs('Certificates', 'member')
          .map((c) => c.requiredString('CertificateArn')),
      });
      return result({ Listeners: [listenerXml(listener)] });
    },
  },
  DescribeListeners: { handle: describeListeners },
  ModifyListener: {
    resources: listenerResource,
    handle: ({ state, input }) => {
      const defaultActions = input.has('DefaultActions') ? actions(input) : undefined;
      const listener = state.elbv2.modifyListener(input.requiredString('ListenerArn'), {
        port: input.int('Port'),
        protocol: input.string('Protocol'),
        defaultActions,
      });
      return result({ Listeners: [listenerXml(listener)] });
    },
  },
  DeleteListener: {
    resources: listenerResource,
    handle: ({ state, input }) => {
      state.elbv2.deleteListener(input.requiredString('ListenerArn'));
      return '';
    },
  },
  AddTags: {
    resources: taggedResources,
    handle: ({ state, input }) => {
      const tags = readTags(input);
      const maps = input.list('ResourceArns', 'member').map((arn) => state.elbv2.tagsOf(arn));
      for (const map of maps) for (const [k, v] of Object.entries(tags)) map.set(k, v);
      return '';
    },
  },
  RemoveTags: {
    resources: taggedResources,
    handle: ({ state, input }) => {
      const keys = input.list('TagKeys', 'member');
      const maps = input.list('ResourceArns', 'member').map((arn) => state.elbv2.tagsOf(arn));
      for (const map of maps) for (const k of keys) map.delete(k);
      return '';
    },
  },
  DescribeTags: {
    handle: ({ state, input }) => {
      const arns = input.list('ResourceArns', 'member');
      if (arns.length > 20) throw new AwsApiError('ValidationError', 'At most 20 resource ARNs may be given');
      return result({
        TagDescriptions: arns.map((arn) => ({ ResourceArn: arn, Tags: tagList(state.elbv2.tagsOf(arn)) })),
      });
    },
  },
};

export const elbv2Service: ServiceDefinition = {
  descriptor: {
    name: 'elbv2',
    signingName: 'elasticloadbalancing',
    version: '2015-12-01',
    namespace: 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/',
    protocol: 'query',
    iamPrefix: 'elasticloadbalancing',
  },
  actions: actionTable,
};
