import { AwsApiError } from '../protocol/aws-api-error.js';
import type { InstanceStateName } from '../seed/seed-schema.js';
import type { Ec2Instance, InstanceMetadataOptions, InstanceProfileRef, Mutable } from './ec2-types.js';
import type { IdGenerator } from './ids.js';
import type { NetworkStore } from './network-store.js';
import { tagMap } from './network-store.js';
import { privateDnsNameFor } from './ipv4.js';
import type { SecurityGroupStore } from './security-group-store.js';

/** What it takes to launch an instance in-process (scenarios, the twin) or through RunInstances. */
export interface RunInstanceSpec {
  readonly id?: string | undefined;
  readonly subnetId?: string | undefined;
  readonly availabilityZone?: string | undefined;
  readonly privateIpAddress?: string | undefined;
  readonly privateDnsName?: string | undefined;
  readonly publicIpAddress?: string | undefined;
  readonly instanceType?: string | undefined;
  readonly imageId?: string | undefined;
  readonly state?: InstanceStateName | undefined;
  readonly securityGroupIds?: readonly string[] | undefined;
  /** Instance profile name; resolved by the caller into `profile`. */
  readonly iamInstanceProfile?: string | undefined;
  readonly hostname?: string | undefined;
  readonly localHostname?: string | undefined;
  readonly macAddress?: string | undefined;
  readonly keyName?: string | undefined;
  readonly launchTime?: number | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
  /** Each option the default's when omitted (DEFAULT_METADATA_OPTIONS). */
  readonly metadataOptions?: Partial<InstanceMetadataOptions> | undefined;
}

/**
 * What an instance gets when its launch names no metadata options and its AMI does not declare
 * `ImdsSupport: v2.0`: tokens optional, hop limit 1, endpoint enabled (EC2 API reference,
 * InstanceMetadataOptionsRequest defaults). Amazon Linux 2023 AMIs declare v2.0 and get required and 2.
 */
export const DEFAULT_METADATA_OPTIONS: InstanceMetadataOptions = {
  httpTokens: 'optional',
  httpPutResponseHopLimit: 1,
  httpEndpoint: 'enabled',
};

export interface StateChange {
  readonly instanceId: string;
  readonly previous: InstanceStateName;
  readonly current: InstanceStateName;
}

const INSTANCE_ID_RE = /^i-([0-9a-f]{8}|[0-9a-f]{17})$/;

/** True for `i-` followed by 8 or 17 lower-case hex digits, the shapes EC2 accepts. */
export function isWellFormedInstanceId(id: string): boolean {
  return INSTANCE_ID_RE.test(id);
}

/**
 * Instances, indexed by id, private DNS name and private IP so lookups by node name stay fast with thousands of
 * instances. Terminated instances stay visible for `terminatedRetentionMs` of clock time, then disappear.
 */
export class InstanceStore {
  private readonly byId = new Map<string, Ec2Instance>();
  private readonly byDns = new Map<string, Ec2Instance[]>();
  private readonly byIp = new Map<string, Ec2Instance[]>();
  private readonly terminatedAt = new Map<string, number>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly network: NetworkStore,
    private readonly groups: SecurityGroupStore,
    private readonly now: () => number,
    private readonly terminatedRetentionMs: number,
    private readonly touch: () => void = () => {},
  ) {}

  /** Drops terminated instances whose retention has passed. Cheap: only terminated ones are looked at. */
  sweep(): void {
    if (this.terminatedAt.size === 0) return;
    const now = this.now();
    for (const [id, at] of this.terminatedAt) {
      if (now - at < this.terminatedRetentionMs) continue;
      const instance = this.byId.get(id);
      this.terminatedAt.delete(id);
      if (instance) this.remove(instance);
    }
  }

  get(id: string): Ec2Instance | undefined {
    this.sweep();
    return this.byId.get(id);
  }

  /** Every visible instance, in launch order. */
  all(): Ec2Instance[] {
    this.sweep();
    return [...this.byId.values()];
  }

  get size(): number {
    return this.byId.size;
  }

  byPrivateDnsName(name: string): readonly Ec2Instance[] {
    this.sweep();
    return this.byDns.get(name) ?? [];
  }

  byPrivateIp(ip: string): readonly Ec2Instance[] {
    this.sweep();
    return this.byIp.get(ip) ?? [];
  }

  /** Throws EC2's errors for malformed and unknown ids (the message lists every unknown one). */
  requireAll(ids: readonly string[]): Ec2Instance[] {
    this.sweep();
    const malformed = ids.find((id) => !isWellFormedInstanceId(id));
    if (malformed !== undefined) {
      throw new AwsApiError('InvalidInstanceID.Malformed', `Invalid id: "${malformed}"`);
    }
    const missing = ids.filter((id) => !this.byId.has(id));
    if (missing.length === 1) {
      throw new AwsApiError('InvalidInstanceID.NotFound', `The instance ID '${missing[0]}' does not exist`);
    }
    if (missing.length > 1) {
      throw new AwsApiError(
        'InvalidInstanceID.NotFound',
        `The instance IDs '${missing.join(', ')}' do not exist`,
      );
    }
    return ids.map((id) => this.byId.get(id)!);
  }

  launch(
    spec: RunInstanceSpec,
    profile: InstanceProfileRef | undefined,
    reservationId: string,
    launchIndex = 0,
  ): Ec2Instance {
    if (spec.id !== undefined && this.byId.has(spec.id)) {
      throw new AwsApiError('InvalidParameterValue', `Instance ${spec.id} already exists`);
    }
    const subnet = this.network.chooseSubnet(spec.subnetId, spec.availabilityZone);
    const groupIds =
      spec.securityGroupIds ?? [this.groups.defaultFor(subnet.vpcId)?.id].filter((g) => g !== undefined);
    for (const g of groupIds) {
      const group = this.groups.require(g);
      if (group.vpcId !== subnet.vpcId) {
        throw new AwsApiError(
          'InvalidParameter',
          `Security group ${g} and subnet ${subnet.id} belong to different networks.`,
        );
      }
    }
    const ip = this.network.claimIp(subnet.id, spec.privateIpAddress);
    let id = spec.id;
    while (id === undefined || (spec.id === undefined && this.byId.has(id))) id = this.ids.ec2Id('i');
    const now = this.now();
    const instance: Ec2Instance = {
      id,
      seq: this.ids.nextSeq(),
      reservationId,
      imageId: spec.imageId ?? 'ami-0c7217cdde317cfec',
      instanceType: spec.instanceType ?? 'm5.large',
      state: spec.state ?? 'running',
      stateChangedAt: now,
      stateTransitionReason: '',
      privateIpAddress: ip,
      privateDnsName: spec.privateDnsName ?? privateDnsNameFor(ip, this.network.region),
      publicIpAddress: spec.publicIpAddress,
      subnetId: subnet.id,
      vpcId: subnet.vpcId,
      availabilityZone: subnet.availabilityZone,
      securityGroupIds: [...groupIds],
      iamInstanceProfile: profile,
      hostname: spec.hostname,
      localHostname: spec.localHostname,
      macAddress: spec.macAddress ?? `0e:${this.ids.hex('mac', 10).replace(/(..)(?!$)/g, '$1:')}`,
      networkInterfaceId: this.ids.ec2Id('eni'),
      networkAttachmentId: this.ids.ec2Id('eni-attach'),
      launchTime: spec.launchTime ?? now,
      keyName: spec.keyName,
      amiLaunchIndex: launchIndex,
      metadataOptions: { ...DEFAULT_METADATA_OPTIONS, ...definedOnly(spec.metadataOptions) },
      tags: tagMap(spec.tags),
    };
    this.byId.set(id, instance);
    push(this.byDns, instance.privateDnsName, instance);
    push(this.byIp, instance.privateIpAddress, instance);
    if (instance.state === 'terminated') this.terminatedAt.set(id, now);
    this.touch();
    return instance;
  }

  /** Moves an instance to a state, returning the change (terminated is final: it only waits to disappear). */
  setState(id: string, state: InstanceStateName, reason = ''): StateChange {
    const [instance] = this.requireAll([id]) as Mutable<Ec2Instance>[];
    const previous = instance!.state;
    if (previous === 'terminated' && state !== 'terminated') {
      throw new AwsApiError(
        'IncorrectInstanceState',
        `The instance '${id}' is not in a state from which it can be started.`,
      );
    }
    if (previous !== state) {
      this.touch();
      instance!.state = state;
      instance!.stateChangedAt = this.now();
      instance!.stateTransitionReason = reason;
      if (state === 'terminated') {
        this.terminatedAt.set(id, this.now());
        // A terminated instance gives its address back.
        this.network.releaseIp(instance!.subnetId, instance!.privateIpAddress);
      }
    }
    return { instanceId: id, previous, current: state };
  }

  /** Changes the names IMDS reports (a node moved to a custom DHCP domain, say). */
  setHostnames(
    id: string,
    names: { hostname?: string | undefined; localHostname?: string | undefined },
  ): void {
    const [instance] = this.requireAll([id]) as Mutable<Ec2Instance>[];
    if ('hostname' in names) instance!.hostname = names.hostname;
    if ('localHostname' in names) instance!.localHostname = names.localHostname;
    this.touch();
  }

  /** ModifyInstanceMetadataOptions: options not given keep their value. */
  setMetadataOptions(id: string, changes: Partial<InstanceMetadataOptions>): InstanceMetadataOptions {
    const [instance] = this.requireAll([id]) as Mutable<Ec2Instance>[];
    instance!.metadataOptions = { ...instance!.metadataOptions, ...definedOnly(changes) };
    this.touch();
    return instance!.metadataOptions;
  }

  setSecurityGroups(id: string, groupIds: readonly string[]): void {
    const [instance] = this.requireAll([id]) as Mutable<Ec2Instance>[];
    for (const g of groupIds) this.groups.require(g);
    instance!.securityGroupIds = [...groupIds];
    this.touch();
  }

  setInstanceProfile(id: string, profile: InstanceProfileRef | undefined): void {
    const [instance] = this.requireAll([id]) as Mutable<Ec2Instance>[];
    instance!.iamInstanceProfile = profile;
    this.touch();
  }

  /** The first non-terminated instance using a security group, if any. */
  usingSecurityGroup(groupId: string): Ec2Instance | undefined {
    for (const i of this.byId.values())
      if (i.state !== 'terminated' && i.securityGroupIds.includes(groupId)) return i;
    return undefined;
  }

  private remove(instance: Ec2Instance): void {
    this.touch();
    this.byId.delete(instance.id);
    pull(this.byDns, instance.privateDnsName, instance);
    pull(this.byIp, instance.privateIpAddress, instance);
  }
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function push(index: Map<string, Ec2Instance[]>, key: string, instance: Ec2Instance): void {
  const list = index.get(key);
  if (list) list.push(instance);
  else index.set(key, [instance]);
}

function pull(index: Map<string, Ec2Instance[]>, key: string, instance: Ec2Instance): void {
  const list = index.get(key);
  if (!list) return;
  const rest = list.filter((i) => i !== instance);
  if (rest.length === 0) index.delete(key);
  else index.set(key, rest);
}
