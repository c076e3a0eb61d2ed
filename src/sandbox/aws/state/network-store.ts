import { AwsApiError } from '../protocol/aws-api-error.js';
import type { IdGenerator } from './ids.js';
import { cidrContains, intToIp, ipToInt, parseCidr, zoneIdFor } from './ipv4.js';
import type { Mutable, Route, RouteTable, Subnet, TagMap, Vpc } from './ec2-types.js';

export interface VpcSpec {
  readonly id?: string | undefined;
  readonly cidrBlock: string;
  readonly isDefault?: boolean;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface SubnetSpec {
  readonly id?: string | undefined;
  readonly vpcId: string;
  readonly cidrBlock: string;
  readonly availabilityZone: string;
  readonly mapPublicIpOnLaunch?: boolean;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface RouteTableSpec {
  readonly id?: string | undefined;
  readonly vpcId: string;
  readonly main?: boolean;
  readonly subnetIds?: readonly string[];
  readonly routes?: readonly Omit<Route, 'origin'>[];
  readonly tags?: Readonly<Record<string, string>>;
}

export function tagMap(tags: Readonly<Record<string, string>> | undefined): TagMap {
  return new Map(Object.entries(tags ?? {}));
}

/** VPCs, subnets, route tables and the region's availability zones, plus private address allocation. */
export class NetworkStore {
  readonly vpcs = new Map<string, Vpc>();
  readonly subnets = new Map<string, Subnet>();
  readonly routeTables = new Map<string, RouteTable>();
  /** Addresses in use per subnet, so allocation never hands one out twice. */
  private readonly usedIps = new Map<string, Set<number>>();
  /** Where the next free-address search starts per subnet, so allocation stays O(1) amortised. */
  private readonly nextIp = new Map<string, number>();

  constructor(
    private readonly ids: IdGenerator,
    readonly region: string,
    private readonly touch: () => void = () => {},
  ) {}

  /** The zones of the region: a, b, c plus any a subnet uses. */
  availabilityZones(): string[] {
    const zones = new Set(['a', 'b', 'c'].map((l) => `${this.region}${l}`));
    for (const s of this.subnets.values()) zones.add(s.availabilityZone);
    return [...zones].sort();
  }

  addVpc(spec: VpcSpec): Vpc {
    const id = spec.id ?? this.freshId('vpc', this.vpcs);
    const vpc: Vpc = {
      id,
      seq: this.ids.nextSeq(),
      cidrBlock: spec.cidrBlock,
      isDefault: spec.isDefault ?? false,
      dhcpOptionsId: this.ids.ec2Id('dopt'),
      tags: tagMap(spec.tags),
    };
    this.vpcs.set(id, vpc);
    return vpc;
  }

  addSubnet(spec: SubnetSpec): Subnet {
    const vpc = this.requireVpc(spec.vpcId);
    const range = parseCidr(spec.cidrBlock);
    const vpcRange = parseCidr(vpc.cidrBlock);
    if (range.network < vpcRange.network || range.network + range.size > vpcRange.network + vpcRange.size) {
      throw new AwsApiError('InvalidSubnet.Range', `The CIDR '${spec.cidrBlock}' is invalid.`);
    }
    const id = spec.id ?? this.freshId('subnet', this.subnets);
    const subnet: Subnet = {
      id,
      seq: this.ids.nextSeq(),
      vpcId: vpc.id,
      cidrBlock: spec.cidrBlock,
      availabilityZone: spec.availabilityZone,
      availabilityZoneId: zoneIdFor(spec.availabilityZone, this.region),
      mapPublicIpOnLaunch: spec.mapPublicIpOnLaunch ?? false,
      tags: tagMap(spec.tags),
    };
    this.subnets.set(id, subnet);
    return subnet;
  }

  addRouteTable(spec: RouteTableSpec): RouteTable {
    const vpc = this.requireVpc(spec.vpcId);
    for (const subnetId of spec.subnetIds ?? []) this.requireSubnet(subnetId);
    const routes: Route[] = (spec.routes ?? []).map((r) => ({ ...r, origin: 'CreateRoute' }));
    // Every route table has the VPC's local route, first.
    if (!routes.some((r) => r.destinationCidrBlock === vpc.cidrBlock)) {
      routes.unshift({
        destinationCidrBlock: vpc.cidrBlock,
        gatewayId: 'local',
        state: 'active',
        origin: 'CreateRouteTable',
      });
    }
    const id = spec.id ?? this.freshId('rtb', this.routeTables);
    const table: RouteTable = {
      id,
      seq: this.ids.nextSeq(),
      vpcId: vpc.id,
      main: spec.main ?? false,
      subnetIds: [...(spec.subnetIds ?? [])],
      routes,
      tags: tagMap(spec.tags),
    };
    this.routeTables.set(id, table);
    return table;
  }

  vpc(id: string): Vpc | undefined {
    return this.vpcs.get(id);
  }

  subnet(id: string): Subnet | undefined {
    return this.subnets.get(id);
  }

  requireVpc(id: string): Vpc {
    const vpc = this.vpcs.get(id);
    if (!vpc) throw new AwsApiError('InvalidVpcID.NotFound', `The vpc ID '${id}' does not exist`);
    return vpc;
  }

  requireSubnet(id: string): Subnet {
    const subnet = this.subnets.get(id);
    if (!subnet) throw new AwsApiError('InvalidSubnetID.NotFound', `The subnet ID '${id}' does not exist`);
    return subnet;
  }

  /** The subnet for a new instance: the given one, else the first in the zone, else the first of all. */
  chooseSubnet(subnetId: string | undefined, zone: string | undefined): Subnet {
    if (subnetId !== undefined) {
      const subnet = this.requireSubnet(subnetId);
      if (zone !== undefined && subnet.availabilityZone !== zone) {
        throw new AwsApiError(
          'InvalidParameterValue',
          `Subnet ${subnetId} is in ${subnet.availabilityZone}, not the requested ${zone}`,
        );
      }
      return subnet;
    }
    for (const s of this.subnets.values()) if (zone === undefined || s.availabilityZone === zone) return s;
    if (zone !== undefined) {
      throw new AwsApiError('InvalidParameterValue', `No subnet found in availability zone ${zone}`);
    }
    throw new AwsApiError('MissingInput', 'No subnets found for the default VPC. Please specify a subnet.');
  }

  /** Claims an address: the given one (must be free and inside the subnet) or the next free one after the 4 AWS reserves. */
  claimIp(subnetId: string, requested?: string): string {
    const subnet = this.requireSubnet(subnetId);
    const range = parseCidr(subnet.cidrBlock);
    let used = this.usedIps.get(subnetId);
    if (!used) this.usedIps.set(subnetId, (used = new Set()));
    if (requested !== undefined) {
      if (!cidrContains(range, requested)) {
        throw new AwsApiError(
          'InvalidParameterValue',
          `Address ${requested} does not fall within the subnet's address range`,
        );
      }
      const n = ipToInt(requested);
      if (used.has(n)) {
        throw new AwsApiError('InvalidIPAddress.InUse', `Address ${requested} is in use.`);
      }
      used.add(n);
      return requested;
    }
    // AWS reserves the first four addresses and the last one of every subnet.
    const first = range.network + 4;
    const end = range.network + range.size - 1;
    const start = Math.max(first, this.nextIp.get(subnetId) ?? first);
    for (let k = 0; k < end - first; k++) {
      const n = first + ((start - first + k) % (end - first));
      if (!used.has(n)) {
        used.add(n);
        this.nextIp.set(subnetId, n + 1);
        return intToIp(n);
      }
    }
    throw new AwsApiError(
      'InsufficientFreeAddressesInSubnet',
      `There are not enough free addresses in subnet '${subnetId}' to satisfy the requested number of instances.`,
    );
  }

  releaseIp(subnetId: string, ip: string): void {
    this.usedIps.get(subnetId)?.delete(ipToInt(ip));
  }

  /** Replaces a route table's routes (scenarios that break or mend routing). */
  setRoutes(routeTableId: string, routes: readonly Omit<Route, 'origin'>[]): void {
    const table = this.routeTables.get(routeTableId) as Mutable<RouteTable> | undefined;
    if (!table)
      throw new AwsApiError(
        'InvalidRouteTableID.NotFound',
        `The routeTable ID '${routeTableId}' does not exist`,
      );
    table.routes = routes.map((r) => ({ ...r, origin: 'CreateRoute' }));
    this.touch();
  }

  private freshId(prefix: string, taken: ReadonlyMap<string, unknown>): string {
    for (;;) {
      const id = this.ids.ec2Id(prefix);
      if (!taken.has(id)) return id;
    }
  }
}
