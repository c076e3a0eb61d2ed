import { compileFilters, readFilters } from '../filters/filter-engine.js';
import { paginate } from '../paging/page-token.js';
import { AwsApiError } from '../protocol/aws-api-error.js';
import type { XmlObject } from '../protocol/xml.js';
import type { AwsState } from '../state/aws-state.js';
import type { AutoScalingGroup, AutoScalingTag } from '../state/autoscaling-store.js';
import type { ActionContext, ServiceDefinition } from './service-types.js';
import { pageSize, result } from './query-common.js';

const invalidNextToken = (): AwsApiError => new AwsApiError('InvalidNextToken', 'The token is invalid');
const invalidFilter = (name: string): AwsApiError =>
  new AwsApiError(
    'ValidationError',
    `Filter type ${name} is not correct. Allowed Filter types are: auto-scaling-group key value propagate-at-launch`,
  );

function tagXml(group: AutoScalingGroup, t: AutoScalingTag): XmlObject {
  return {
    ResourceId: group.name,
    ResourceType: 'auto-scaling-group',
    Key: t.key,
    Value: t.value,
    PropagateAtLaunch: t.propagateAtLaunch,
  };
}

function groupXml(state: AwsState, g: AutoScalingGroup): XmlObject {
  return {
    AutoScalingGroupName: g.name,
    AutoScalingGroupARN: g.arn,
    LaunchTemplate: g.launchTemplate
      ? {
          LaunchTemplateId: g.launchTemplate.id,
          LaunchTemplateName: g.launchTemplate.name,
          Version: g.launchTemplate.version,
        }
      : undefined,
    MinSize: g.minSize,
    MaxSize: g.maxSize,
    DesiredCapacity: g.desiredCapacity,
    DefaultCooldown: 300,
    AvailabilityZones: [...g.availabilityZones],
    LoadBalancerNames: [...g.loadBalancerNames],
    TargetGroupARNs: [...g.targetGroupArns],
    HealthCheckType: 'EC2',
    HealthCheckGracePeriod: 300,
    Instances: g.instanceIds.flatMap((id) => {
      const i = state.ec2.instances.get(id);
      if (!i) return [];
      const inService = i.state === 'running' || i.state === 'pending';
      return [
        {
          InstanceId: i.id,
          InstanceType: i.instanceType,
          AvailabilityZone: i.availabilityZone,
          LifecycleState: inService ? 'InService' : i.state === 'terminated' ? 'Terminated' : 'Standby',
          HealthStatus: inService ? 'Healthy' : 'Unhealthy',
          LaunchTemplate: g.launchTemplate
            ? {
                LaunchTemplateId: g.launchTemplate.id,
                LaunchTemplateName: g.launchTemplate.name,
                Version: '1',
              }
            : undefined,
          ProtectedFromScaleIn: false,
        },
      ];
    }),
    CreatedTime: new Date(g.createdTime),
    SuspendedProcesses: [],
    VPCZoneIdentifier: g.subnetIds.join(','),
    EnabledMetrics: [],
    Tags: g.tags.map((t) => tagXml(g, t)),
    TerminationPolicies: ['Default'],
    NewInstancesProtectedFromScaleIn: false,
    ServiceLinkedRoleARN: `arn:aws:iam::${state.accountId}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`,
    CapacityRebalance: false,
  };
}

function describeGroups({ state, input }: ActionContext): string {
  const names = input.list('AutoScalingGroupNames', 'member');
  const limit = pageSize(input, 'MaxRecords', 100) ?? 50;
  const tagMap = (g: AutoScalingGroup): ReadonlyMap<string, string> =>
    new Map(g.tags.map((t) => [t.key, t.value]));
  const matches = compileFilters(
    readFilters(input, 'member'),
    { tags: tagMap, fields: {} },
    (name) =>
      new AwsApiError(
        'ValidationError',
        `Filter type ${name} is not correct. Allowed Filter types are: tag-key tag-value tag:<key>`,
      ),
  );
  // Unknown names are simply absent from the answer, as on AWS.
  const selected = state.autoscaling
    .list()
    .filter((g) => (names.length === 0 || names.includes(g.name)) && matches(g));
  const page = paginate(selected, (g) => g.seq, {
    listing: 'DescribeAutoScalingGroups',
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  return result({ AutoScalingGroups: page.items.map((g) => groupXml(state, g)), NextToken: page.next });
}

function describeTags({ state, input }: ActionContext): string {
  const limit = pageSize(input, 'MaxRecords', 100) ?? 50;
  type Entry = { group: AutoScalingGroup; tag: AutoScalingTag; seq: number };
  const matches = compileFilters(
    readFilters(input, 'member'),
    {
      fields: {
        'auto-scaling-group': (e: Entry) => e.group.name,
        key: (e: Entry) => e.tag.key,
        value: (e: Entry) => e.tag.value,
        'propagate-at-launch': (e: Entry) => String(e.tag.propagateAtLaunch),
      },
    },
    invalidFilter,
  );
  let seq = 0;
  const all: Entry[] = state.autoscaling
    .list()
    .flatMap((group) => group.tags.map((tag) => ({ group, tag, seq: ++seq })));
  const page = paginate(all.filter(matches), (e) => e.seq, {
    listing: 'autoscaling:DescribeTags',
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  return result({ Tags: page.items.map((e) => tagXml(e.group, e.tag)), NextToken: page.next });
}

export const autoScalingService: ServiceDefinition = {
  descriptor: {
    name: 'autoscaling',
    signingName: 'autoscaling',
    version: '2011-01-01',
    namespace: 'http://autoscaling.amazonaws.com/doc/2011-01-01/',
    protocol: 'query',
    iamPrefix: 'autoscaling',
  },
  actions: {
    DescribeAutoScalingGroups: { handle: describeGroups },
    DescribeTags: { handle: describeTags },
    CreateOrUpdateTags: {
      handle: ({ state, input }) => {
        for (const t of input.structs('Tags', 'member')) {
          state.autoscaling.setTags(t.requiredString('ResourceId'), [
            {
              key: t.requiredString('Key'),
              value: t.string('Value') ?? '',
              propagateAtLaunch: t.bool('PropagateAtLaunch') ?? false,
            },
          ]);
        }
        return undefined;
      },
    },
    DeleteTags: {
      handle: ({ state, input }) => {
        for (const t of input.structs('Tags', 'member'))
          state.autoscaling.deleteTags(t.requiredString('ResourceId'), [t.requiredString('Key')]);
        return undefined;
      },
    },
  },
};
