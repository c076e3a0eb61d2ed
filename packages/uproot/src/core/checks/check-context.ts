/**
 * What every check receives: the snapshot, the options, and facts derived once (the cluster profile, each
 * node's EC2 instance), so a 5,000-node cluster is indexed once, not once per check.
 */
import type { Ec2InstanceFacts, NodeFacts, PreflightSnapshot } from '../model/snapshot.js';
import type { CheckResult } from './check-result.js';
import { buildProfile, type ClusterProfile } from './facts/cluster-profile.js';
import {
  nodeNameLookup,
  parseProviderId,
  type NodeNameLookup,
  type ParsedProviderId,
} from './facts/provider-id.js';

export interface CheckOptions {
  /** The Kubernetes version the migration upgrades to (`--target-version`). */
  readonly targetVersion?: string;
  /** `--allow-unknown-release`: a target release newer than uproot's release table is taken as given. */
  readonly allowUnknownRelease?: boolean;
  /** The cluster id for tags when the instances carry none yet. */
  readonly clusterId?: string;
}

export interface NodeInstance {
  readonly node: NodeFacts;
  readonly lookup: NodeNameLookup;
  /** Live instances the CCM's name lookup finds (private-dns-name filter, or the id in a resource name). */
  readonly byName: readonly Ec2InstanceFacts[];
  readonly providerId?: ParsedProviderId;
  /** The instance the providerID names, if it exists at all (any state). */
  readonly byProviderId?: Ec2InstanceFacts;
  /** The node's instance for tag and IAM checks: the providerID's, else the single name match. */
  readonly instance?: Ec2InstanceFacts;
}

export interface CheckContext {
  readonly snapshot: PreflightSnapshot;
  readonly options: CheckOptions;
  readonly profile: ClusterProfile;
  /** Per node, its instance; undefined when AWS instances could not be read. */
  readonly nodeInstances?: readonly NodeInstance[];
}

export type Check = (ctx: CheckContext) => CheckResult;

/** cloud-provider-aws's aliveFilter: terminated instances are not found by name. */
const ALIVE = new Set(['pending', 'running', 'shutting-down', 'stopping', 'stopped']);

export function buildContext(snapshot: PreflightSnapshot, options: CheckOptions): CheckContext {
  const profile = buildProfile(snapshot.kube, options.targetVersion);
  const aws = snapshot.aws;
  if (aws.state !== 'ok' || aws.value.instances.state !== 'ok') return { snapshot, options, profile };
  const instances = aws.value.instances.value;
  const byId = new Map(instances.map((i) => [i.instanceId, i]));
  const byDns = new Map<string, Ec2InstanceFacts[]>();
  for (const i of instances) {
    if (!i.privateDnsName || !ALIVE.has(i.state)) continue;
    const list = byDns.get(i.privateDnsName) ?? [];
    list.push(i);
    byDns.set(i.privateDnsName, list);
  }
  const nodeInstances = profile.nodes.map((node): NodeInstance => {
    const lookup = nodeNameLookup(node.name);
    const byName =
      lookup.by === 'instance-id'
        ? [byId.get(lookup.instanceId)].filter(
            (i): i is Ec2InstanceFacts => i !== undefined && ALIVE.has(i.state),
          )
        : (byDns.get(lookup.name) ?? []);
    const providerId = node.providerID ? parseProviderId(node.providerID) : undefined;
    const byProviderId = providerId?.kind === 'instance' ? byId.get(providerId.instanceId) : undefined;
    const instance = byProviderId ?? (byName.length === 1 ? byName[0] : undefined);
    return {
      node,
      lookup,
      byName,
      ...(providerId ? { providerId } : {}),
      ...(byProviderId ? { byProviderId } : {}),
      ...(instance ? { instance } : {}),
    };
  });
  return { snapshot, options, profile, nodeInstances };
}

/** The reason AWS-backed checks skip, or undefined when instances were read. */
export function awsSkipReason(ctx: CheckContext): string | undefined {
  const aws = ctx.snapshot.aws;
  if (aws.state === 'unavailable') return aws.reason;
  if (aws.value.instances.state === 'unavailable') return aws.value.instances.reason;
  return undefined;
}

export function nodesSkipReason(ctx: CheckContext): string | undefined {
  const nodes = ctx.snapshot.kube.nodes;
  if (nodes.state === 'unavailable') return nodes.reason;
  if (nodes.value.length === 0) return 'the cluster has no Nodes';
  return undefined;
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
