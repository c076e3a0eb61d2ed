import { AwsApiError } from '../protocol/aws-api-error.js';
import type { Ec2Store } from './ec2-store.js';
import type { Mutable } from './ec2-types.js';
import type { IdGenerator } from './ids.js';

export interface AutoScalingTag {
  readonly key: string;
  readonly value: string;
  readonly propagateAtLaunch: boolean;
}

export interface AutoScalingGroup {
  readonly name: string;
  readonly arn: string;
  readonly seq: number;
  readonly minSize: number;
  readonly maxSize: number;
  readonly desiredCapacity: number;
  readonly availabilityZones: readonly string[];
  readonly subnetIds: readonly string[];
  readonly createdTime: number;
  readonly launchTemplate?:
    { readonly name: string; readonly id: string; readonly version: string } | undefined;
  readonly loadBalancerNames: readonly string[];
  readonly targetGroupArns: readonly string[];
  readonly instanceIds: readonly string[];
  readonly tags: readonly AutoScalingTag[];
}

export interface AutoScalingGroupSpec {
  readonly name: string;
  readonly minSize?: number | undefined;
  readonly maxSize?: number | undefined;
  readonly desiredCapacity?: number | undefined;
  readonly instanceIds?: readonly string[] | undefined;
  readonly availabilityZones?: readonly string[] | undefined;
  readonly subnetIds?: readonly string[] | undefined;
  readonly launchTemplate?: { readonly name: string; readonly version?: string | undefined } | undefined;
  readonly loadBalancerNames?: readonly string[] | undefined;
  readonly targetGroupArns?: readonly string[] | undefined;
  readonly tags?: readonly AutoScalingTag[] | undefined;
}

/** Auto Scaling groups: membership and tags only; the emulator does not scale on its own. */
export class AutoScalingStore {
  private readonly groups = new Map<string, AutoScalingGroup>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly ec2: Ec2Store,
    private readonly now: () => number,
  ) {}

  list(): AutoScalingGroup[] {
    return [...this.groups.values()];
  }

  get(name: string): AutoScalingGroup | undefined {
    return this.groups.get(name);
  }

  require(name: string): AutoScalingGroup {
    const group = this.groups.get(name);
    if (!group)
      throw new AwsApiError(
        'ValidationError',
        `AutoScalingGroup name not found - AutoScalingGroup '${name}' not found`,
      );
    return group;
  }

  create(spec: AutoScalingGroupSpec): AutoScalingGroup {
    if (this.groups.has(spec.name)) {
      throw new AwsApiError(
        'AlreadyExists',
        `AutoScalingGroup by this name already exists - A group with the name ${spec.name} already exists`,
      );
    }
    const instanceIds = [...(spec.instanceIds ?? [])];
    this.ec2.instances.requireAll(instanceIds);
    const subnets = (spec.subnetIds ?? []).map((id) => this.ec2.network.requireSubnet(id));
    const zones =
      spec.availabilityZones ??
      (subnets.length > 0
        ? [...new Set(subnets.map((s) => s.availabilityZone))]
        : [...new Set(instanceIds.map((id) => this.ec2.instances.get(id)!.availabilityZone))]);
    const group: AutoScalingGroup = {
      name: spec.name,
      arn: `arn:aws:autoscaling:${this.ec2.region}:${this.ec2.accountId}:autoScalingGroup:${this.ids.uuid()}:autoScalingGroupName/${spec.name}`,
      seq: this.ids.nextSeq(),
      minSize: spec.minSize ?? 0,
      maxSize: spec.maxSize ?? Math.max(10, instanceIds.length),
      desiredCapacity: spec.desiredCapacity ?? instanceIds.length,
      availabilityZones: zones,
      subnetIds: subnets.map((s) => s.id),
      createdTime: this.now(),
      launchTemplate: spec.launchTemplate
        ? {
            name: spec.launchTemplate.name,
            id: this.ids.ec2Id('lt'),
            version: spec.launchTemplate.version ?? '$Default',
          }
        : undefined,
      loadBalancerNames: [...(spec.loadBalancerNames ?? [])],
      targetGroupArns: [...(spec.targetGroupArns ?? [])],
      instanceIds,
      tags: [...(spec.tags ?? [])],
    };
    this.groups.set(spec.name, group);
    return group;
  }

  delete(name: string): void {
    this.require(name);
    this.groups.delete(name);
  }

  attachInstances(name: string, instanceIds: readonly string[]): void {
    const group = this.require(name) as Mutable<AutoScalingGroup>;
    this.ec2.instances.requireAll(instanceIds);
    group.instanceIds = [...new Set([...group.instanceIds, ...instanceIds])];
    group.desiredCapacity = group.instanceIds.length;
  }

  detachInstances(name: string, instanceIds: readonly string[]): void {
    const group = this.require(name) as Mutable<AutoScalingGroup>;
    group.instanceIds = group.instanceIds.filter((id) => !instanceIds.includes(id));
    group.desiredCapacity = group.instanceIds.length;
  }

  /** Creates or replaces tags by key. */
  setTags(name: string, tags: readonly AutoScalingTag[]): void {
    const group = this.require(name) as Mutable<AutoScalingGroup>;
    const byKey = new Map(group.tags.map((t) => [t.key, t]));
    for (const t of tags) byKey.set(t.key, t);
    group.tags = [...byKey.values()];
  }

  deleteTags(name: string, keys: readonly string[]): void {
    const group = this.require(name) as Mutable<AutoScalingGroup>;
    group.tags = group.tags.filter((t) => !keys.includes(t.key));
  }
}
