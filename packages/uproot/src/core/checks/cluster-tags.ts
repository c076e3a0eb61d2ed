/**
 * cluster-tags: the nodes' instances, their subnets and security groups carry `kubernetes.io/cluster/<id>`
 * (owned or shared) for one cluster id, the legacy `KubernetesCluster` tag agrees where present, and each
 * instance has exactly one tagged security group. The CCM's load-balancer code fails with "Multiple tagged
 * security groups found for instance …; ensure only the k8s security group is tagged" otherwise
 * (kubernetes#73906), and with "multiple untagged security groups found" when none is tagged and several
 * are attached.
 */
import { fail, pass, skip, warn, type CheckResult, type Fix, type ResourceRef } from './check-result.js';
import { awsSkipReason, nodesSkipReason, plural, type CheckContext } from './check-context.js';
import type { Ec2InstanceFacts, SecurityGroupFacts } from '../model/snapshot.js';
import {
  LEGACY_CLUSTER_TAG,
  clusterTagKey,
  clusterTagsOf,
  dominantClusterId,
  groupTagChanges,
  tagCommands,
} from './facts/ec2-tags.js';

const ID = 'cluster-tags';

type Change = { resourceId: string; key: string; value?: string };

export function checkClusterTags(ctx: CheckContext): CheckResult {
  const reason = nodesSkipReason(ctx) ?? awsSkipReason(ctx);
  if (reason || !ctx.nodeInstances || ctx.snapshot.aws.state !== 'ok')
    return skip(ID, reason ?? 'no instances');
  const aws = ctx.snapshot.aws.value;
  const instances = uniqueInstances(ctx.nodeInstances.map((ni) => ni.instance));
  if (instances.length === 0) return skip(ID, 'no node resolves to an instance (see node-names)');
  const definition = ctx.profile.definition;
  // An id the in-tree cloud config names (and the plan carries into the CCM): the managers never read the
  // id from the instance tags, so another cluster's tag on an instance does not stop them (tags.go init).
  const configured =
    definition && definition.distro !== 'kubeadm' ? definition.configuredClusterId : undefined;
  const clusterId = ctx.options.clusterId ?? configured ?? dominantClusterId(instances.map((i) => i.tags));
  const fails: string[] = [];
  const warns: string[] = [];
  const resources: ResourceRef[] = [];
  const create: Change[] = [];
  const remove: Change[] = [];
  if (!clusterId) {
    return fail(
      ID,
      `none of the ${plural(instances.length, 'instance')} carries a kubernetes.io/cluster/<id> tag: the CCM finds no ClusterID`,
      [
        {
          type: 'commands',
          description:
            'choose a cluster id (any string, the same everywhere) and tag the instances, their subnets and the one Kubernetes security group',
          commands: tagCommands(
            aws.region,
            [
              {
                resourceIds: instances.map((i) => i.instanceId),
                key: clusterTagKey('CLUSTER_ID'),
                value: 'owned',
              },
            ],
            [],
          ),
        },
      ],
      { resources: instances.map((i) => ({ kind: 'Instance', name: i.instanceId })) },
    );
  }
  const key = clusterTagKey(clusterId);

  for (const i of instances) {
    const t = clusterTagsOf(i.tags);
    const problems: string[] = [];
    if (!t.ids.has(clusterId)) {
      problems.push(
        t.ids.size === 0 ? 'no cluster tag' : `tagged for ${[...t.ids.keys()].join(', ')}, not ${clusterId}`,
      );
      create.push({ resourceId: i.instanceId, key, value: 'owned' });
    }
    for (const other of t.ids.keys()) {
      if (other !== clusterId) {
        if (t.ids.has(clusterId) && configured === clusterId)
          warns.push(
            `instance ${i.instanceId}: also tagged for cluster ${other}; harmless while the cloud config names KubernetesClusterID ${clusterId} (uproot carries it into the CCM), fatal for a manager without it ("Found multiple cluster tags")`,
          );
        else if (t.ids.has(clusterId)) problems.push(`also tagged for cluster ${other}`);
        remove.push({ resourceId: i.instanceId, key: clusterTagKey(other) });
      }
    }
    if (t.legacy !== undefined && t.legacy !== clusterId) {
      problems.push(`clusterID tags did not match: ${LEGACY_CLUSTER_TAG}=${t.legacy} vs ${key}`);
      create.push({ resourceId: i.instanceId, key: LEGACY_CLUSTER_TAG, value: clusterId });
    }
    if (problems.length > 0) {
      fails.push(`instance ${i.instanceId}: ${problems.join('; ')}`);
      resources.push({ kind: 'Instance', name: i.instanceId });
    } else if (!['owned', 'shared'].includes(t.ids.get(clusterId) ?? '')) {
      warns.push(
        `instance ${i.instanceId}: ${key}=${JSON.stringify(t.ids.get(clusterId))} is neither owned nor shared`,
      );
      create.push({ resourceId: i.instanceId, key, value: 'owned' });
    }
  }

  checkSecurityGroups(ctx, instances, clusterId, { fails, warns, resources, create, remove });
  checkSubnets(ctx, instances, clusterId, { warns, resources, create });

  const details = [...fails, ...warns];
  if (details.length === 0) {
    return pass(
      ID,
      `${plural(instances.length, 'instance')}, their subnets and security groups are tagged for cluster ${clusterId}; one tagged security group per instance`,
    );
  }
  const createChanges = groupTagChanges(create);
  const removeChanges = groupTagChanges(remove);
  const fixes: Fix[] = [
    {
      type: 'ec2-tags',
      description: `tag the resources for cluster ${clusterId} and remove conflicting tags`,
      create: createChanges,
      remove: removeChanges,
      commands: tagCommands(aws.region, createChanges, removeChanges),
    },
  ];
  return fails.length > 0
    ? fail(ID, `${plural(fails.length, 'tagging problem')} for cluster ${clusterId}: ${fails[0]}`, fixes, {
        resources,
        details,
      })
    : warn(ID, `${plural(warns.length, 'tagging issue')} for cluster ${clusterId}: ${warns[0]}`, fixes, {
        resources,
        details,
      });
}

interface Sink {
  fails?: string[];
  warns: string[];
  resources: ResourceRef[];
  create: Change[];
  remove?: Change[];
}

function checkSecurityGroups(
  ctx: CheckContext,
  instances: readonly Ec2InstanceFacts[],
  clusterId: string,
  sink: Sink & { fails: string[]; remove: Change[] },
): void {
  const aws = ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value : undefined;
  if (!aws || aws.securityGroups.state !== 'ok') {
    sink.warns.push(
      `security groups not checked: ${aws?.securityGroups.state === 'unavailable' ? aws.securityGroups.reason : 'unavailable'}`,
    );
    return;
  }
  const groups = new Map(aws.securityGroups.value.map((g) => [g.groupId, g]));
  const key = clusterTagKey(clusterId);
  const isTagged = (g: SecurityGroupFacts | undefined) => g !== undefined && key in g.tags;
  // Which tagged groups keep the tag: greedily the most shared ones (ties: lowest id), never two on one
  // instance, so removing the others leaves every instance with exactly one.
  const popularity = new Map<string, number>();
  for (const i of instances)
    for (const id of i.securityGroupIds) popularity.set(id, (popularity.get(id) ?? 0) + 1);
  const byPopularity = (ids: Iterable<string>) =>
    [...ids].sort((a, b) => (popularity.get(b) ?? 0) - (popularity.get(a) ?? 0) || a.localeCompare(b));
  const keep = new Set<string>();
  const covered = new Set<string>();
  for (const id of byPopularity(
    new Set(instances.flatMap((i) => i.securityGroupIds.filter((g) => isTagged(groups.get(g))))),
  )) {
    const holders = instances.filter((i) => i.securityGroupIds.includes(id));
    if (holders.some((i) => covered.has(i.instanceId))) continue;
    keep.add(id);
    for (const i of holders) covered.add(i.instanceId);
  }
  const best = (ids: readonly string[]) => byPopularity(ids)[0]!;
  for (const i of instances) {
    const tagged = i.securityGroupIds.filter((id) => isTagged(groups.get(id)));
    const untagged = i.securityGroupIds.filter((id) => !isTagged(groups.get(id)));
    if (tagged.length > 1) {
      sink.fails.push(
        `Multiple tagged security groups found for instance ${i.instanceId}; ensure only the k8s security group is tagged; the tagged groups were ${tagged.join(', ')}`,
      );
      const kept = tagged.find((id) => keep.has(id)) ?? best(tagged);
      for (const id of tagged) if (id !== kept) sink.remove.push({ resourceId: id, key });
      sink.resources.push(
        { kind: 'Instance', name: i.instanceId },
        ...tagged.map((id) => ({ kind: 'SecurityGroup', name: id })),
      );
    } else if (tagged.length === 0 && untagged.length > 1) {
      sink.fails.push(
        `multiple untagged security groups found for instance ${i.instanceId}; ensure the k8s security group is tagged (${untagged.join(', ')})`,
      );
      sink.create.push({ resourceId: best(untagged), key, value: 'owned' });
      sink.resources.push({ kind: 'Instance', name: i.instanceId });
    } else if (tagged.length === 0 && untagged.length === 1) {
      sink.warns.push(
        `instance ${i.instanceId}: its only security group ${untagged[0]} is untagged (accepted for backward compatibility)`,
      );
      sink.create.push({ resourceId: untagged[0]!, key, value: 'owned' });
    }
  }
}

function checkSubnets(
  ctx: CheckContext,
  instances: readonly Ec2InstanceFacts[],
  clusterId: string,
  sink: Sink,
): void {
  const aws = ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value : undefined;
  if (!aws || aws.subnets.state !== 'ok') {
    sink.warns.push(
      `subnets not checked: ${aws?.subnets.state === 'unavailable' ? aws.subnets.reason : 'unavailable'}`,
    );
    return;
  }
  const subnets = new Map(aws.subnets.value.map((s) => [s.subnetId, s]));
  const key = clusterTagKey(clusterId);
  for (const id of new Set(instances.map((i) => i.subnetId).filter((s): s is string => s !== undefined))) {
    const subnet = subnets.get(id);
    if (subnet && !(key in subnet.tags)) {
      sink.warns.push(`subnet ${id}: no ${key} tag (the CCM uses it to pick load-balancer subnets)`);
      sink.create.push({ resourceId: id, key, value: 'shared' });
      sink.resources.push({ kind: 'Subnet', name: id });
    }
  }
}

function uniqueInstances(list: readonly (Ec2InstanceFacts | undefined)[]): Ec2InstanceFacts[] {
  const seen = new Map<string, Ec2InstanceFacts>();
  for (const i of list) if (i && !seen.has(i.instanceId)) seen.set(i.instanceId, i);
  return [...seen.values()];
}
