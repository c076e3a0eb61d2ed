import { AwsApiError } from '../protocol/aws-api-error.js';
import type { InstanceStateName } from '../seed/seed-schema.js';
import type {
  DhcpOptions,
  Ec2Instance,
  Ec2Tags,
  InstanceProfileRef,
  Route,
  RouteTable,
  SecurityGroup,
  Subnet,
  TagMap,
  Vpc,
} from './ec2-types.js';
import type { IdGenerator } from './ids.js';
import { InstanceStore, type RunInstanceSpec, type StateChange } from './instance-store.js';
import { NetworkStore } from './network-store.js';
import { SecurityGroupStore } from './security-group-store.js';

/** A resource's tags as DescribeTags lists them. */
export interface TagDescription {
  readonly resourceId: string;
  readonly resourceType: string;
  readonly key: string;
  readonly value: string;
}

const RESOURCE_TYPES: readonly [prefix: string, type: string][] = [
  ['i-', 'instance'],
  ['vpc-', 'vpc'],
  ['subnet-', 'subnet'],
  ['sg-', 'security-group'],
  ['rtb-', 'route-table'],
  ['dopt-', 'dhcp-options'],
];

const MAX_TAGS = 50;

/**
 * Everything EC2: network, security groups, instances and the tags on all of them. Methods throw AwsApiError
 * with the codes EC2 uses, so in-process callers and SDK callers see the same failures.
 */
export class Ec2Store {
  readonly network: NetworkStore;
  readonly securityGroups: SecurityGroupStore;
  readonly instances: InstanceStore;
  private revisionCounter = 0;

  constructor(
    private readonly ids: IdGenerator,
    readonly region: string,
    readonly accountId: string,
    now: () => number,
    terminatedRetentionMs: number,
  ) {
    const touch = (): void => {
      this.revisionCounter++;
    };
    this.network = new NetworkStore(ids, region, touch);
    this.securityGroups = new SecurityGroupStore(ids, touch);
    this.instances = new InstanceStore(
      ids,
      this.network,
      this.securityGroups,
      now,
      terminatedRetentionMs,
      touch,
    );
  }

  /** Bumped by every change to EC2 state; rendered responses cached under an older revision are stale. */
  get revision(): number {
    return this.revisionCounter;
  }

  // Convenience reads for scenarios and the twin.
  instance(id: string): Ec2Instance | undefined {
    return this.instances.get(id);
  }

  listInstances(): Ec2Instance[] {
    return this.instances.all();
  }

  vpcs(): Vpc[] {
    return [...this.network.vpcs.values()];
  }

  subnets(): Subnet[] {
    return [...this.network.subnets.values()];
  }

  routeTables(): RouteTable[] {
    return [...this.network.routeTables.values()];
  }

  listSecurityGroups(): SecurityGroup[] {
    return [...this.securityGroups.groups.values()];
  }

  dhcpOptions(): DhcpOptions[] {
    return [...this.network.dhcpOptions.values()];
  }

  /**
   * CreateRoute. An instance target must exist and sit in the table's VPC (EC2 routes to its primary network
   * interface); a gateway or NAT gateway id is taken as given (the emulator has no gateways).
   */
  createRoute(
    routeTableId: string,
    target: { destinationCidrBlock: string } & Pick<Route, 'gatewayId' | 'instanceId' | 'natGatewayId'>,
  ): Route {
    const table = this.network.requireRouteTable(routeTableId);
    const targets = [target.gatewayId, target.instanceId, target.natGatewayId].filter((t) => t !== undefined);
    if (targets.length === 0) {
      throw new AwsApiError(
        'MissingParameter',
        'The request must contain exactly one of gatewayId, natGatewayId, networkInterfaceId, vpcPeeringConnectionId or instanceId',
      );
    }
    if (targets.length > 1) {
      throw new AwsApiError(
        'InvalidParameterCombination',
        'More than one target specified: give exactly one of gatewayId, natGatewayId or instanceId',
      );
    }
    if (target.instanceId !== undefined) {
      const instance = this.instances.get(target.instanceId);
      if (!instance || instance.state === 'terminated') {
        throw new AwsApiError(
          'InvalidInstanceID.NotFound',
          `The instance ID '${target.instanceId}' does not exist`,
        );
      }
      if (instance.vpcId !== table.vpcId) {
        throw new AwsApiError(
          'InvalidParameterValue',
          `route table ${routeTableId} and network gateway ${target.instanceId} belong to different networks`,
        );
      }
    }
    return this.network.addRoute(routeTableId, target);
  }

  deleteRoute(routeTableId: string, destinationCidrBlock: string): void {
    this.network.removeRoute(routeTableId, destinationCidrBlock);
  }

  /** Launches instances sharing one reservation. `profileFor` resolves instance profile names. */
  runInstances(
    specs: readonly RunInstanceSpec[],
    profileFor: (name: string) => InstanceProfileRef,
  ): { reservationId: string; instances: Ec2Instance[] } {
    const reservationId = this.ids.ec2Id('r');
    const instances = specs.map((spec, index) =>
      this.instances.launch(
        spec,
        spec.iamInstanceProfile === undefined ? undefined : profileFor(spec.iamInstanceProfile),
        reservationId,
        index,
      ),
    );
    return { reservationId, instances };
  }

  terminate(ids: readonly string[]): StateChange[] {
    this.instances.requireAll(ids);
    return ids.map((id) => this.instances.setState(id, 'terminated', 'User initiated'));
  }

  stop(ids: readonly string[]): StateChange[] {
    this.requireStates(ids, ['running', 'stopped', 'stopping', 'pending'], 'stopped');
    return ids.map((id) => this.instances.setState(id, 'stopped', 'User initiated'));
  }

  start(ids: readonly string[]): StateChange[] {
    this.requireStates(ids, ['running', 'stopped', 'pending'], 'started');
    return ids.map((id) => this.instances.setState(id, 'running'));
  }

  setInstanceState(id: string, state: InstanceStateName): StateChange {
    return this.instances.setState(id, state);
  }

  /** The tags of any taggable EC2 resource, or the resource's NotFound error. */
  tagsOf(resourceId: string): Ec2Tags {
    return this.mutableTags(resourceId);
  }

  private mutableTags(resourceId: string): TagMap {
    const type = resourceTypeOf(resourceId);
    const notFound = (code: string, what: string): AwsApiError =>
      new AwsApiError(code, `The ${what} ID '${resourceId}' does not exist`);
    switch (type) {
      case 'instance': {
        const i = this.instances.get(resourceId);
        if (!i) throw notFound('InvalidInstanceID.NotFound', 'instance');
        return i.tags as TagMap;
      }
      case 'vpc':
        return this.network.requireVpc(resourceId).tags as TagMap;
      case 'subnet':
        return this.network.requireSubnet(resourceId).tags as TagMap;
      case 'security-group':
        return this.securityGroups.require(resourceId).tags as TagMap;
      case 'route-table': {
        const t = this.network.routeTables.get(resourceId);
        if (!t) throw notFound('InvalidRouteTableID.NotFound', 'routeTable');
        return t.tags as TagMap;
      }
      case 'dhcp-options':
        return this.network.requireDhcpOptions(resourceId).tags as TagMap;
      default:
        throw new AwsApiError('InvalidID', `The ID '${resourceId}' is not valid`);
    }
  }

  /** Tags as a plain record. */
  tagRecord(resourceId: string): Record<string, string> {
    return Object.fromEntries(this.tagsOf(resourceId));
  }

  /** Adds or overwrites tags on every resource; all resources are checked before any is changed. */
  createTags(resourceIds: readonly string[], tags: Readonly<Record<string, string>>): void {
    const entries = Object.entries(tags);
    for (const [key, value] of entries) {
      if (key.startsWith('aws:')) {
        throw new AwsApiError(
          'InvalidParameterValue',
          "Tag keys starting with 'aws:' are reserved for internal use",
        );
      }
      if (key.length === 0 || key.length > 128 || value.length > 256) {
        throw new AwsApiError('InvalidParameterValue', `Tag key or value has an invalid length: '${key}'`);
      }
    }
    const maps = resourceIds.map((id) => this.mutableTags(id));
    for (const map of maps) {
      const after = new Set([...map.keys(), ...entries.map(([k]) => k)]);
      if (after.size > MAX_TAGS) {
        throw new AwsApiError(
          'TagLimitExceeded',
          'The maximum number of Tags for a resource has been reached.',
        );
      }
    }
    for (const map of maps) for (const [k, v] of entries) map.set(k, v);
    this.revisionCounter++;
  }

  /** Removes tags; a given value removes the tag only when it matches, as DeleteTags does. */
  deleteTags(
    resourceIds: readonly string[],
    tags: readonly { key: string; value?: string | undefined }[],
  ): void {
    this.revisionCounter++;
    const maps = resourceIds.map((id) => this.mutableTags(id));
    for (const map of maps) {
      if (tags.length === 0) {
        map.clear();
        continue;
      }
      for (const { key, value } of tags) {
        if (value === undefined || map.get(key) === value) map.delete(key);
      }
    }
  }

  /** Every tag of every resource, for DescribeTags, ordered by resource type then id then key. */
  allTags(): TagDescription[] {
    const out: TagDescription[] = [];
    const add = (resourceId: string, resourceType: string, tags: Ec2Tags): void => {
      for (const [key, value] of [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        out.push({ resourceId, resourceType, key, value });
      }
    };
    for (const i of this.instances.all()) add(i.id, 'instance', i.tags);
    for (const g of this.securityGroups.groups.values()) add(g.id, 'security-group', g.tags);
    for (const s of this.network.subnets.values()) add(s.id, 'subnet', s.tags);
    for (const v of this.network.vpcs.values()) add(v.id, 'vpc', v.tags);
    for (const t of this.network.routeTables.values()) add(t.id, 'route-table', t.tags);
    for (const d of this.network.dhcpOptions.values()) add(d.id, 'dhcp-options', d.tags);
    return out;
  }

  private requireStates(ids: readonly string[], allowed: readonly InstanceStateName[], verb: string): void {
    for (const instance of this.instances.requireAll(ids)) {
      if (!allowed.includes(instance.state)) {
        throw new AwsApiError(
          'IncorrectInstanceState',
          `The instance '${instance.id}' is not in a state from which it can be ${verb}.`,
        );
      }
    }
  }
}

export function resourceTypeOf(resourceId: string): string | undefined {
  return RESOURCE_TYPES.find(([prefix]) => resourceId.startsWith(prefix))?.[1];
}
