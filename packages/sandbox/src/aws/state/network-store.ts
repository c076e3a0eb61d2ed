import { AwsApiError } from '../protocol/aws-api-error.js';
import type { IdGenerator } from './ids.js';
import { cidrContains, intToIp, ipToInt, parseCidr, privateDnsDomain, zoneIdFor } from './ipv4.js';
import type {
  DhcpConfiguration,
  DhcpOptions,
  Mutable,
  Route,
  RouteTable,
  Subnet,
  TagMap,
  Vpc,
} from './ec2-types.js';

export interface VpcSpec {
  readonly id?: string | undefined;
  readonly cidrBlock: string;
  readonly isDefault?: boolean;
  /** A declared DHCP options set, `default` for none; the account's default set when omitted. */
  readonly dhcpOptionsId?: string | undefined;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface DhcpOptionsSpec {
  readonly id?: string | undefined;
  readonly configurations: readonly DhcpConfiguration[];
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

/** EC2's answer for a route table id that does not exist. */
export function routeTableNotFound(id: string): AwsApiError {
  return new AwsApiError('InvalidRouteTableID.NotFound', `The routeTable ID '${id}' does not exist`);
}

/** EC2's answer for a DHCP options id that does not exist. */
export function dhcpOptionsNotFound(id: string): AwsApiError {
  return new AwsApiError('InvalidDhcpOptionID.NotFound', `The dhcpOption ID '${id}' does not exist`);
}

/** VPCs, subnets, route tables, DHCP options and the region's availability zones, plus private address allocation. */
export class NetworkStore {
  readonly vpcs = new Map<string, Vpc>();
  readonly dhcpOptions = new Map<string, DhcpOptions>();
  /** The account's default DHCP options set, made when the first VPC without its own needs it. */
  private defaultDhcpOptionsId: string | undefined;
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

  addDhcpOptions(spec: DhcpOptionsSpec): DhcpOptions {
    const id = spec.id ?? this.freshId('dopt', this.dhcpOptions);
    const options: DhcpOptions = {
      id,
      seq: this.ids.nextSeq(),
      configurations: spec.configurations.map((c) => ({ key: c.key, values: [...c.values] })),
      tags: tagMap(spec.tags),
    };
    this.dhcpOptions.set(id, options);
    this.touch();
    return options;
  }

  /** What every account has: the region's private DNS domain and Amazon's resolver. */
  defaultDhcpOptions(): DhcpOptions {
    const existing = this.defaultDhcpOptionsId && this.dhcpOptions.get(this.defaultDhcpOptionsId);
    if (existing) return existing;
    const created = this.addDhcpOptions({
      configurations: [
        { key: 'domain-name', values: [privateDnsDomain(this.region)] },
        { key: 'domain-name-servers', values: ['AmazonProvidedDNS'] },
      ],
    });
    this.defaultDhcpOptionsId = created.id;
    return created;
  }

  requireDhcpOptions(id: string): DhcpOptions {
    const options = this.dhcpOptions.get(id);
    if (!options) throw dhcpOptionsNotFound(id);
    return options;
  }

  addVpc(spec: VpcSpec): Vpc {
    const dhcpOptionsId =
      spec.dhcpOptionsId === undefined
        ? this.defaultDhcpOptions().id
        : spec.dhcpOptionsId === 'default'
          ? 'default'
          : this.requireDhcpOptions(spec.dhcpOptionsId).id;
    const id = spec.id ?? this.freshId('vpc', this.vpcs);
    const vpc: Vpc = {
      id,
      seq: this.ids.nextSeq(),
      cidrBlock: spec.cidrBlock,
      isDefault: spec.isDefault ?? false,
      dhcpOptionsId,
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

  requireRouteTable(id: string): RouteTable {
    const table = this.routeTables.get(id);
    if (!table) throw routeTableNotFound(id);
    return table;
  }

  /** Replaces a route table's routes (scenarios that break or mend routing). */
  setRoutes(routeTableId: string, routes: readonly Omit<Route, 'origin'>[]): void {
    const table = this.requireRouteTable(routeTableId) as Mutable<RouteTable>;
    table.routes = routes.map((r) => ({ ...r, origin: 'CreateRoute' }));
    this.touch();
  }

  /**
   * CreateRoute's table side: the destination must be a network address (EC2 refuses `10.42.0.5/24`) and not
   * already routed. The target is checked by the caller (only it knows the instances).
   */
  addRoute(routeTableId: string, route: Omit<Route, 'origin' | 'state'>): Route {
    const table = this.requireRouteTable(routeTableId) as Mutable<RouteTable>;
    const cidr = route.destinationCidrBlock;
    if (!isNetworkCidr(cidr)) {
      throw new AwsApiError(
        'InvalidParameterValue',
        `Value (${cidr}) for parameter destinationCidrBlock is invalid. This is not a valid CIDR block.`,
      );
    }
    if (table.routes.some((r) => r.destinationCidrBlock === cidr)) {
      throw new AwsApiError('RouteAlreadyExists', `The route identified by ${cidr} already exists.`);
    }
    const added: Route = { ...route, state: 'active', origin: 'CreateRoute' };
    table.routes = [...table.routes, added];
    this.touch();
    return added;
  }

  /** DeleteRoute: the route must exist, and the VPC's local route cannot go. */
  removeRoute(routeTableId: string, destinationCidrBlock: string): void {
    const table = this.requireRouteTable(routeTableId) as Mutable<RouteTable>;
    const route = table.routes.find((r) => r.destinationCidrBlock === destinationCidrBlock);
    if (!route) {
      throw new AwsApiError(
        'InvalidRoute.NotFound',
        `no route with destination-cidr-block ${destinationCidrBlock} in route table ${routeTableId}`,
      );
    }
    if (route.gatewayId === 'local') {
      throw new AwsApiError(
        'InvalidParameterValue',
        `cannot remove local route ${destinationCidrBlock} in route table ${routeTableId}`,
      );
    }
    table.routes = table.routes.filter((r) => r !== route);
    this.touch();
  }

  private freshId(prefix: string, taken: ReadonlyMap<string, unknown>): string {
    for (;;) {
      const id = this.ids.ec2Id(prefix);
      if (!taken.has(id)) return id;
    }
  }
}

/** `a.b.c.d/n` with no host bits set. */
function isNetworkCidr(cidr: string): boolean {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (!match || match.slice(1, 5).some((o) => Number(o) > 255) || Number(match[5]) > 32) return false;
  const ip = cidr.split('/')[0]!;
  return parseCidr(cidr).network === ipToInt(ip);
}
